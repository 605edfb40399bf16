import { describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { inParallel } from '../../support/workload.js';

const grant = (service: TestService, credential: { client_id: string; client_secret: string }) =>
  service
    .post('/v1/credential/token', {
      ...credential,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    })
    .then((response) => response.status);

describe('tenants isolated from each other', () => {
  it('a flood from one space, at and past its ceiling, leaves another space’s issuance at ≥ 99% 200s', async () => {
    const service = await startTestService({
      CLIENT_RATE_LIMIT_PER_MINUTE: '200',
      SPACE_RATE_LIMIT_PER_MINUTE: '300',
    });
    const flooders = await Promise.all(
      [1, 2, 3].map(() => createCredentialVia(service, 'space-flooding')),
    );
    const quiet = await createCredentialVia(service, 'space-quiet');
    const flood = inParallel(
      24,
      Array.from({ length: 900 }, (_, i) => () => grant(service, flooders[i % 3]!)),
    );
    const steady = inParallel(
      2,
      Array.from({ length: 100 }, () => () => grant(service, quiet)),
    );
    const [flooded, served] = await Promise.all([flood, steady]);
    // The flooding space got its ceiling and no more; the other space was served.
    expect(flooded.filter((status) => status === 200)).toHaveLength(300);
    expect(flooded.filter((status) => status === 429)).toHaveLength(600);
    expect(served.filter((status) => status === 200).length).toBeGreaterThanOrEqual(99);
  });
});
