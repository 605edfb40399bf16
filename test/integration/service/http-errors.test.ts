import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, type PrivateTokenClaims } from '../../../src/crypto/access-tokens.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

let service: TestService;
let credential: { client_id: string; client_secret: string };
let privateToken: string;
let publicToken: string;
let login: string;

beforeAll(async () => {
  service = await startTestService({ BODY_LIMIT_BYTES: '1024' });
  credential = await createCredentialVia(service, 'space-a');
  privateToken = await privateTokenVia(service, credential);
  const issued = await service.post(
    '/v1/issue',
    { customer_id: 'c', segment_id: 's' },
    {
      authorization: `Bearer ${privateToken}`,
      'x-service-space-id': 'space-a',
    },
  );
  publicToken = ((await issued.json()) as { token: string }).token;
  login = await service.loginToken(['space-a']);
});

const SUCCESS_TYPES = ['credential-created', 'private-token-issued', 'public-token-issued'];
async function successEventCount(): Promise<number> {
  const result = await service.database.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM events WHERE event_type = ANY($1)',
    [SUCCESS_TYPES],
  );
  return result.rows[0]!.n;
}

const tokenBody = () => ({ ...credential, audience: AUDIENCE, grant_type: 'client_credentials' });
const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  'x-service-space-id': 'space-a',
});

describe('malformed requests get a clear 4xx and record nothing', () => {
  const cases: Array<{
    name: string;
    send: () => Promise<Response>;
    status: number;
    body: Record<string, unknown>;
  }> = [
    {
      name: 'token: wrong Content-Type → 415',
      send: () => service.post('/v1/credential/token', 'x', { 'content-type': 'text/plain' }),
      status: 415,
      body: {
        error: 'invalid_request',
        error_description: expect.stringContaining('Content-Type'),
      },
    },
    {
      name: 'token: no Content-Type → 415',
      send: () =>
        fetch(`${service.baseUrl}/v1/credential/token`, {
          method: 'POST',
          body: new Uint8Array([123]),
        }),
      status: 415,
      body: { error: 'invalid_request' },
    },
    {
      name: 'token: malformed JSON → 400',
      send: () => service.post('/v1/credential/token', '{"client_id": '),
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: expect.stringContaining('not valid JSON'),
      },
    },
    {
      name: 'token: JSON that is not an object → 400',
      send: () => service.post('/v1/credential/token', '"client_credentials"'),
      status: 400,
      body: { error: 'invalid_request' },
    },
    {
      name: 'token: oversized body → 413',
      send: () =>
        service.post('/v1/credential/token', { ...tokenBody(), padding: 'x'.repeat(5000) }),
      status: 413,
      body: { error: 'invalid_request', error_description: expect.stringContaining('1024 bytes') },
    },
    {
      name: 'token: missing fields are named → 400',
      send: () => service.post('/v1/credential/token', { grant_type: 'client_credentials' }),
      status: 400,
      body: {
        error: 'invalid_request',
        invalid_fields: [
          { field: 'client_id', message: 'is required' },
          { field: 'client_secret', message: 'is required' },
          { field: 'audience', message: 'is required' },
        ],
      },
    },
    {
      name: 'token: wrong types are named → 400',
      send: () => service.post('/v1/credential/token', { ...tokenBody(), client_secret: 42 }),
      status: 400,
      body: {
        error: 'invalid_request',
        invalid_fields: [{ field: 'client_secret', message: expect.stringContaining('string') }],
      },
    },
    {
      name: 'token: empty strings are named → 400',
      send: () => service.post('/v1/credential/token', { ...tokenBody(), audience: '' }),
      status: 400,
      body: {
        error: 'invalid_request',
        invalid_fields: [{ field: 'audience', message: 'must not be empty' }],
      },
    },
    {
      name: 'token: other grant types → unsupported_grant_type',
      send: () => service.post('/v1/credential/token', { ...tokenBody(), grant_type: 'password' }),
      status: 400,
      body: { error: 'unsupported_grant_type' },
    },
    {
      name: 'token: unknown audience → invalid_target',
      send: () =>
        service.post('/v1/credential/token', { ...tokenBody(), audience: 'evil.example' }),
      status: 400,
      body: { error: 'invalid_target' },
    },
    {
      name: 'credential: missing name and empty description are named → 400',
      send: () => service.post('/v1/credential', { description: '  ' }, bearer(login)),
      status: 400,
      body: {
        code: 'invalid_request',
        invalid_fields: [
          { field: 'name', message: 'is required' },
          { field: 'description', message: 'must not be empty' },
        ],
      },
    },
    {
      name: 'credential: overlong name → 400',
      send: () =>
        service.post('/v1/credential', { name: 'n'.repeat(201), description: 'd' }, bearer(login)),
      status: 400,
      body: {
        code: 'invalid_request',
        invalid_fields: [{ field: 'name', message: expect.stringContaining('200') }],
      },
    },
    {
      name: 'credential: missing space header → 400',
      send: () =>
        service.post(
          '/v1/credential',
          { name: 'n', description: 'd' },
          { authorization: `Bearer ${login}` },
        ),
      status: 400,
      body: {
        code: 'invalid_request',
        invalid_fields: [{ field: 'X-Service-Space-ID', message: expect.any(String) }],
      },
    },
    {
      name: 'credential: malformed JSON → 400 problem',
      send: () => service.post('/v1/credential', '{nope', bearer(login)),
      status: 400,
      body: { code: 'malformed_json', status: 400, title: 'Malformed JSON body' },
    },
    {
      name: 'credential: form body → 415',
      send: () =>
        service.post('/v1/credential', 'name=a&description=b', {
          ...bearer(login),
          'content-type': 'application/x-www-form-urlencoded',
        }),
      status: 415,
      body: { code: 'unsupported_media_type' },
    },
    {
      name: 'issue: missing segment_id → 400',
      send: () => service.post('/v1/issue', { customer_id: 'c' }, bearer(privateToken)),
      status: 400,
      body: {
        code: 'invalid_request',
        invalid_fields: [{ field: 'segment_id', message: 'is required' }],
      },
    },
    {
      name: 'issue: oversized body → 413',
      send: () =>
        service.post(
          '/v1/issue',
          { customer_id: 'c'.repeat(3000), segment_id: 's' },
          bearer(privateToken),
        ),
      status: 413,
      body: { code: 'payload_too_large' },
    },
    {
      name: 'unknown route → 404 JSON',
      send: () => fetch(`${service.baseUrl}/v1/nothing-here`),
      status: 404,
      body: { code: 'not_found', status: 404 },
    },
    {
      name: 'wrong method → 405 JSON',
      send: () => fetch(`${service.baseUrl}/v1/credential/token`),
      status: 405,
      body: { code: 'method_not_allowed' },
    },
  ];

  it.each(cases)('$name', async ({ send, status, body }) => {
    const before = await successEventCount();
    const response = await send();
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject(body);
    expect(await successEventCount()).toBe(before);
  });

  it('answers a wrong secret and an unknown client_id identically', async () => {
    const wrongSecret = await service.post('/v1/credential/token', {
      ...tokenBody(),
      client_secret: 'cs_wrong',
    });
    const unknownClient = await service.post('/v1/credential/token', {
      ...tokenBody(),
      client_id: 'ci_unknown',
    });
    expect(wrongSecret.status).toBe(401);
    expect(unknownClient.status).toBe(401);
    expect(await wrongSecret.json()).toEqual(await unknownClient.json());
  });

  it('records a failed authentication of a known client without the secret tried', async () => {
    // A credential of its own: no earlier test has written a failure for it.
    const victim = await createCredentialVia(service, 'space-a');
    const tried = 'cs_this-is-what-the-attacker-tried';
    await service.post('/v1/credential/token', {
      ...victim,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
      client_secret: tried,
    });
    const rows = await service.database.pool.query(
      `SELECT data, metadata FROM events WHERE event_type = 'client-authentication-failed' AND data->>'client_id' = $1`,
      [victim.client_id],
    );
    expect(rows.rows).toHaveLength(1);
    expect(JSON.stringify(rows.rows)).not.toContain(tried);
    expect(rows.rows[0].data).toEqual({ client_id: victim.client_id, reason: 'secret_mismatch' });
  });
});

describe('no token kind is accepted where another is expected', () => {
  it.each([
    ['a login token', () => login],
    ['a public token', () => publicToken],
    ['a malformed token', () => 'not-a-jwt'],
  ])('/v1/issue rejects %s with 401 invalid_token', async (_name, token) => {
    const before = await successEventCount();
    const response = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      bearer(token()),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="token-authority", error="invalid_token"/,
    );
    expect(await response.json()).toMatchObject({ code: 'invalid_token' });
    expect(await successEventCount()).toBe(before);
  });

  it.each([
    ['a private token', () => privateToken],
    ['a public token', () => publicToken],
  ])('/v1/credential rejects %s with 401 invalid_token', async (_name, token) => {
    const response = await service.post(
      '/v1/credential',
      { name: 'n', description: 'd' },
      bearer(token()),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('challenges a request without credentials with a bare Bearer challenge', async () => {
    const response = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { 'x-service-space-id': 'space-a' },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="token-authority"');
  });

  /** Claims of a private token for the test credential; `exp`/`iat` relative to now. */
  const claimsFor = (jti: string, expIn: number): PrivateTokenClaims => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'http://token-authority.test',
      sub: credential.client_id,
      aud: AUDIENCE,
      exp: now + expIn,
      iat: now + expIn - 3600,
      jti,
      client_id: credential.client_id,
      space_id: 'space-a',
      token_kind: 'private',
    };
  };

  it.each([
    [
      'a token signed by a key we do not publish, even with our kid',
      () =>
        signAccessToken(
          {
            kid: service.api.commands.keys.current().kid,
            privateKey: generateKeyPairSync('ed25519').privateKey,
          },
          claimsFor('forged', 600),
        ),
      'token signature is invalid',
    ],
    [
      'an expired private token',
      () => signAccessToken(service.api.commands.keys.current(), claimsFor('old', -10)),
      'token has expired',
    ],
  ])('rejects %s', async (_name, token, detail) => {
    const response = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      bearer(token()),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ detail });
  });
});

describe('cross-space attempts are rejected', () => {
  it('a private token of space-a cannot issue for space-b (403 insufficient_scope)', async () => {
    const before = await successEventCount();
    const response = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      {
        authorization: `Bearer ${privateToken}`,
        'x-service-space-id': 'space-b',
      },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(await successEventCount()).toBe(before);
  });

  it('a login token for space-a cannot create credentials in space-b (403)', async () => {
    const response = await service.post(
      '/v1/credential',
      { name: 'n', description: 'd' },
      {
        authorization: `Bearer ${login}`,
        'x-service-space-id': 'space-b',
      },
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'insufficient_scope' });
  });
});
