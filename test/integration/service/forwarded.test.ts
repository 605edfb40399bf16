import { describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-forwarded';
const healthWarnings = async (service: TestService) =>
  ((await (await fetch(`${service.baseUrl}/healthz`)).json()) as { warnings?: string[] })
    .warnings ?? [];

describe('X-Forwarded-For', () => {
  it('with trusted hops, an entry that is not an IP address is never taken as the client address', async () => {
    const service = await startTestService({ TRUSTED_PROXY_HOPS: '1' });
    const credential = await createCredentialVia(service, SPACE);
    const answer = await service.post(
      '/v1/credential/token',
      { ...credential, audience: AUDIENCE, grant_type: 'client_credentials' },
      { 'x-forwarded-for': 'evil<script>, not-an-ip' },
    );
    expect(answer.status).toBe(200);
    const { rows } = await service.database.pool.query<{ ip: string }>(
      `SELECT metadata->>'client_ip' AS ip FROM events WHERE event_type = 'private-token-issued'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('with TRUSTED_PROXY_HOPS=0, a request carrying it makes /healthz warn that callers share the proxy address', async () => {
    const service = await startTestService({ TRUSTED_PROXY_HOPS: '0' });
    expect((await healthWarnings(service)).join()).not.toMatch(/X-Forwarded-For/);
    await fetch(`${service.baseUrl}/livez`, { headers: { 'x-forwarded-for': '198.51.100.4' } });
    expect((await healthWarnings(service)).join()).toMatch(/X-Forwarded-For.*TRUSTED_PROXY_HOPS=0/);
  });
});
