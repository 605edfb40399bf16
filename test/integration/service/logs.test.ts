import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/config/logger.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const lines: string[] = [];
let service: TestService;

beforeAll(async () => {
  // The service's own logger factory (same redaction), writing where the test can read it.
  const logger = createLogger({ LOG_LEVEL: 'debug' }, 'token-authority', {
    write: (line: string) => void lines.push(line),
  });
  service = await startTestService({}, logger);
});

describe('logs', () => {
  it('carry one line per request and never a secret, a token or a login token', async () => {
    const credential = await createCredentialVia(service, 'space-logs');
    const login = await service.loginToken(['space-logs']);
    const token = await service.post('/v1/credential/token', {
      ...credential,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const issued = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { authorization: `Bearer ${access_token}`, 'x-service-space-id': 'space-logs' },
    );
    const { token: publicToken } = (await issued.json()) as { token: string };
    await service.post('/v1/credential/token', {
      ...credential,
      client_secret: 'cs_wrong-guess',
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    });
    await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { authorization: 'Bearer not.a.token', 'x-service-space-id': 'space-logs' },
    );

    const text = lines.join('');
    const requests = lines
      .map(
        (line) =>
          JSON.parse(line) as { msg: string; path?: string; status?: number; clientId?: string },
      )
      .filter((entry) => entry.msg === 'request');
    expect(requests.map((entry) => `${entry.path} ${entry.status}`)).toEqual(
      expect.arrayContaining([
        '/v1/credential 201',
        '/v1/credential/token 200',
        '/v1/issue 200',
        '/v1/credential/token 401',
        '/v1/issue 401',
      ]),
    );
    expect(
      requests.find((entry) => entry.path === '/v1/issue' && entry.status === 200)?.clientId,
    ).toBe(credential.client_id);
    for (const secret of [
      credential.client_secret,
      'cs_wrong-guess',
      access_token,
      publicToken,
      login,
      'not.a.token',
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('refusals in the access log', () => {
  it('a cross-space 403 and a bad login token are logged with address, and subject and space where known', async () => {
    const login = await service.loginToken(['space-logs'], 'mallory');
    const tried = lines.length;
    await fetch(`${service.baseUrl}/v1/credentials`, {
      headers: { authorization: `Bearer ${login}`, 'x-service-space-id': 'space-other' },
    });
    await fetch(`${service.baseUrl}/v1/credentials`, {
      headers: { authorization: 'Bearer not-a-login-token', 'x-service-space-id': 'space-other' },
    });
    const logged = lines
      .slice(tried)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request');
    expect(logged).toEqual([
      expect.objectContaining({
        status: 403,
        subject: 'mallory',
        spaceId: 'space-other',
        ip: expect.stringMatching(/127\.0\.0\.1|::1/),
      }),
      expect.objectContaining({ status: 401, ip: expect.stringMatching(/127\.0\.0\.1|::1/) }),
    ]);
  });
});

describe('redaction', () => {
  it('blanks credentials even when someone logs a whole body or header set by mistake', () => {
    const captured: string[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', {
      write: (line: string) => void captured.push(line),
    });
    logger.info(
      {
        body: { client_secret: 'cs_leak', access_token: 'at_leak', name: 'kept' },
        headers: { authorization: 'Bearer leak' },
        token: 'tok_leak',
      },
      'oops',
    );
    const text = captured.join('');
    for (const leak of ['cs_leak', 'at_leak', 'Bearer leak', 'tok_leak'])
      expect(text).not.toContain(leak);
    expect(text).toContain('kept');
    expect(text).toContain('[redacted]');
  });

  it('blanks them at any depth, in arrays too', () => {
    const captured: string[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', {
      write: (line: string) => void captured.push(line),
    });
    logger.info(
      {
        request: {
          body: { nested: { deeper: [{ client_secret: 'cs_deep', secret_hash: 'hash_deep' }] } },
          headers: { Authorization: 'Bearer deep' },
        },
        context: { user: { password: 'pw_deep', name: 'kept-too' } },
      },
      'oops',
    );
    const text = captured.join('');
    for (const leak of ['cs_deep', 'hash_deep', 'Bearer deep', 'pw_deep'])
      expect(text).not.toContain(leak);
    expect(text).toContain('kept-too');
  });
});
