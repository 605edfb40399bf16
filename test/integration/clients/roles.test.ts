import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT, decodeJwt, importJWK } from 'jose';
import { DEV_LOGIN_ISSUER, devLoginKey } from '../../../src/crypto/login-tokens.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-roles';
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});

const call = async (method: string, route: string, token: string, body?: unknown) =>
  fetch(`${service.baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-service-space-id': SPACE,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('roles inside a space (segregation of duties)', () => {
  it('an auditor reads the audit trail, monitoring and credentials, and is refused every change with 403', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const auditor = await service.loginToken([SPACE], 'carol', 'auditor');
    const id = credential.client_id;
    for (const route of ['/v1/audit/events', '/v1/monitoring/overview', '/v1/credentials']) {
      expect((await call('GET', route, auditor)).status).toBe(200);
    }
    const changes = [
      ['POST', `/v1/credential/${id}/secret`, {}],
      ['POST', '/v1/credential', { name: 'n', description: 'd' }],
      ['PATCH', `/v1/credential/${id}`, { rate_limit_per_minute: 5 }],
      ['DELETE', `/v1/credential/${id}`, undefined],
    ] as const;
    for (const [method, route, body] of changes) {
      const refused = await call(method, route, auditor, body);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
    }
    // Nothing changed: the only event of the credential's stream is its creation.
    const { rows } = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE stream_id = $1`,
      [`credential-${id}`],
    );
    expect(rows[0]!.n).toBe(1);
    // An admin may rotate.
    const admin = await service.loginToken([SPACE], 'alice', 'admin');
    expect((await call('POST', `/v1/credential/${id}/secret`, admin, {})).status).toBe(200);
  });

  it('a login token without a role claim gets the least role, unless LOGIN_DEFAULT_ROLE says admin', async () => {
    const roleless = async (dataDir: string) => {
      const jwk = await devLoginKey(dataDir);
      return new SignJWT({ spaces: [SPACE] })
        .setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid })
        .setIssuer(DEV_LOGIN_ISSUER)
        .setAudience(service.config.LOGIN_AUDIENCE)
        .setSubject('dave')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(await importJWK(jwk, 'EdDSA'));
    };
    const create = (base: string, token: string) =>
      fetch(`${base}/v1/credential`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-service-space-id': SPACE,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'n', description: 'd' }),
      });
    const refused = await create(service.baseUrl, await roleless(service.dataDir));
    expect(refused.status).toBe(403);
    expect((await call('GET', '/v1/credentials', await roleless(service.dataDir))).status).toBe(
      200,
    );
    const lenient = await startTestService({ LOGIN_DEFAULT_ROLE: 'admin' });
    expect((await create(lenient.baseUrl, await roleless(lenient.dataDir))).status).toBe(201);
  });

  it('npm run login-token -- --role=auditor mints a token whose role claim says so', async () => {
    const { stdout } = await promisify(execFile)(
      path.resolve('node_modules/.bin/tsx'),
      ['src/cli/login-token.ts', `--space=${SPACE}`, '--role', 'auditor'],
      { env: { ...process.env, DATA_DIR: service.dataDir, LOG_LEVEL: 'warn' } },
    );
    const token = stdout.trim().split('\n').at(-1)!;
    expect(decodeJwt(token).role).toBe('auditor');
    expect((await call('GET', '/v1/credentials', token)).status).toBe(200);
    expect(
      (await call('POST', '/v1/credential', token, { name: 'n', description: 'd' })).status,
    ).toBe(403);
  });
});
