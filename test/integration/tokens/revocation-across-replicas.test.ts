import { beforeAll, describe, expect, it } from 'vitest';
import {
  createCredentialVia,
  privateTokenVia,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-revoke-fleet';
let replicas: TestService[];

beforeAll(async () => {
  const first = await startTestService();
  replicas = [first, await startSecondInstance(first), await startSecondInstance(first)];
});

/** Milliseconds from `since` until `refused()` holds, polled every 10 ms (at most 3 s). */
async function refusedAfter(since: number, refused: () => Promise<boolean>): Promise<number> {
  while (Date.now() - since < 3000) {
    if (await refused()) return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Number.POSITIVE_INFINITY;
}

describe('revocation across replicas', () => {
  it('a token revoked through one replica is refused by introspection and /v1/issue on every other within 1 s', async () => {
    const [first, ...others] = replicas as [TestService, ...TestService[]];
    const owner = await createCredentialVia(first, SPACE);
    const delays: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const token = await privateTokenVia(first, owner);
      // Every replica serves it first (its lookup is warm).
      for (const replica of others) {
        const introspected = await replica.post('/v1/introspect', { ...owner, token });
        expect(((await introspected.json()) as { active: boolean }).active).toBe(true);
      }
      expect((await first.post('/v1/revoke', { ...owner, token })).status).toBe(200);
      const revokedAt = Date.now();
      for (const replica of others) {
        delays.push(
          await refusedAfter(revokedAt, async () => {
            const response = await replica.post('/v1/introspect', { ...owner, token });
            return !((await response.json()) as { active: boolean }).active;
          }),
          await refusedAfter(revokedAt, async () => {
            const response = await replica.post(
              '/v1/issue',
              { customer_id: 'c-1', segment_id: 's-1' },
              { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE },
            );
            return response.status === 401;
          }),
        );
      }
    }
    expect(Math.max(...delays)).toBeLessThan(1000);
  });
});
