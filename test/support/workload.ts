import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  type TestService,
} from './test-service.js';

/** Runs `tasks` with at most `width` in flight. */
export async function inParallel<T>(
  width: number,
  tasks: ReadonlyArray<() => Promise<T>>,
): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

/**
 * Settings for a service that runs {@link mixedBurst}: it fails authentications on purpose, many
 * per client from one address, which the default budgets would (rightly) lock out.
 */
export const BURST_LIMITS: Readonly<Record<string, string>> = {
  FAILED_AUTH_LIMIT_PER_MINUTE: '1000000',
  FAILED_AUTH_EVENTS_PER_MINUTE: '1000000',
};

/**
 * A burst of mixed operations over HTTP: credentials in two spaces, private tokens, public tokens
 * for varied customers and segments, and failed authentications. Returns how many of each.
 */
export async function mixedBurst(service: TestService, operations: number) {
  const spaces = ['space-one', 'space-two'];
  const credentials = await inParallel(
    5,
    Array.from(
      { length: 10 },
      (_, i) => () => createCredentialVia(service, spaces[i % 2]!, `client-${i}`),
    ),
  );
  const privateTokens = await inParallel(
    10,
    credentials.map((credential) => () => privateTokenVia(service, credential)),
  );
  const counts = {
    credentials: credentials.length,
    private: credentials.length,
    public: 0,
    failures: 0,
  };
  const tasks: Array<() => Promise<void>> = [];
  for (
    let i = 0;
    counts.credentials + counts.private + counts.public + counts.failures + tasks.length <
    operations;
    i++
  ) {
    const which = i % 10;
    const c = Math.floor(i / 10) % credentials.length;
    if (which < 4) {
      tasks.push(async () => {
        await privateTokenVia(service, credentials[c]!);
        counts.private += 1;
      });
    } else if (which < 9) {
      tasks.push(async () => {
        const response = await service.post(
          '/v1/issue',
          { customer_id: `customer-${i % 37}`, segment_id: `segment-${i % 3}` },
          { authorization: `Bearer ${privateTokens[c]}`, 'x-service-space-id': spaces[c % 2]! },
        );
        if (response.status !== 200) throw new Error(`issue failed: ${response.status}`);
        counts.public += 1;
      });
    } else {
      tasks.push(async () => {
        const response = await service.post('/v1/credential/token', {
          client_id: credentials[c]!.client_id,
          client_secret: 'cs_wrong',
          audience: AUDIENCE,
          grant_type: 'client_credentials',
        });
        if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
        counts.failures += 1;
      });
    }
  }
  await inParallel(16, tasks);
  return { ...counts, credentialList: credentials, privateTokens, spaces };
}
