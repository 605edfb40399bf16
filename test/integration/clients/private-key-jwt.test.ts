import {
  SignJWT,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type CryptoKey,
} from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Secretless clients (private_key_jwt, RFC 7523), driven by openid-client's own PrivateKeyJwt,
 * unchanged: the library discovers the server, signs its assertions and talks to the endpoints.
 */
const SPACE = 'space-keys';
const ISSUER = 'http://token-authority.test';
let service: TestService;
let login: string;

beforeAll(async () => {
  service = await startTestService();
  login = await service.loginToken([SPACE], 'alice');
});

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

const asAlice = {
  authorization: '',
  'x-service-space-id': SPACE,
  'content-type': 'application/json',
};
async function createWithKeys(jwk: object) {
  const response = await fetch(`${service.baseUrl}/v1/credential`, {
    method: 'POST',
    headers: { ...asAlice, authorization: `Bearer ${login}` },
    body: JSON.stringify({ name: 'server', description: 'secretless', jwks: { keys: [jwk] } }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as {
    client_id: string;
    client_secret?: string;
    token_endpoint_auth_method: string;
  };
}

/** openid-client configured from our discovery document, authenticating with `key`. */
async function clientFor(clientId: string, key: CryptoKey, kid: string, seen?: string[]) {
  const metadata = (await (
    await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
  ).json()) as oauth.ServerMetadata;
  // Discovery names the public issuer; this test reaches the service on its local port.
  const local = (url: string) => url.replace(ISSUER, service.baseUrl);
  const config = new oauth.Configuration(
    {
      ...metadata,
      token_endpoint: local(metadata.token_endpoint!),
      introspection_endpoint: local(metadata.introspection_endpoint!),
    },
    clientId,
    undefined,
    oauth.PrivateKeyJwt({ key, kid }),
  );
  oauth.allowInsecureRequests(config);
  if (seen) {
    config[oauth.customFetch] = (url, options) => {
      seen.push(String(options.body));
      return fetch(url, options as RequestInit);
    };
  }
  return { config, metadata };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { status?: number; error?: string },
  );

describe('private_key_jwt (RFC 7523) with openid-client', () => {
  it('a credential created with keys has no secret, and discovery lists the method and its algorithms', async () => {
    const { jwk } = await keyPair('k1');
    const created = await createWithKeys(jwk);
    expect(created.client_secret).toBeUndefined();
    expect(created.token_endpoint_auth_method).toBe('private_key_jwt');
    const { metadata } = await clientFor(created.client_id, (await keyPair('x')).privateKey, 'x');
    expect(metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toContain('ES256');
  });

  it('gets a verifiable token, and introspects with the same authentication', async () => {
    const { jwk, privateKey } = await keyPair('k1');
    const created = await createWithKeys(jwk);
    const { config } = await clientFor(created.client_id, privateKey, 'k1');
    const tokens = await oauth.clientCredentialsGrant(config, { audience: AUDIENCE });
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { audience: AUDIENCE });
    expect(payload.client_id).toBe(created.client_id);
    const introspected = await oauth.tokenIntrospection(config, tokens.access_token);
    expect(introspected.active).toBe(true);
  });

  it('a replayed assertion and a wrong key are refused with invalid_client, and recorded', async () => {
    const { jwk, privateKey } = await keyPair('k1');
    const created = await createWithKeys(jwk);
    const seen: string[] = [];
    const { config } = await clientFor(created.client_id, privateKey, 'k1', seen);
    await oauth.clientCredentialsGrant(config, { audience: AUDIENCE });
    // The very request the library sent, sent again: same assertion, same jti.
    const replay = await fetch(`${service.baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: seen[0]!,
    });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: 'invalid_client' });

    const stranger = await keyPair('k1');
    const { config: wrong } = await clientFor(created.client_id, stranger.privateKey, 'k1');
    const failure = await failureOf(oauth.clientCredentialsGrant(wrong, { audience: AUDIENCE }));
    expect(failure?.error).toBe('invalid_client');

    const { rows } = await service.database.pool.query<{ reason: string }>(
      `SELECT data->>'reason' AS reason FROM events
        WHERE event_type = 'client-authentication-failed' AND data->>'client_id' = $1`,
      [created.client_id],
    );
    expect(rows.map((row) => row.reason)).toEqual(['assertion_invalid', 'assertion_invalid']);
  });

  it("rotating the client's own key is an event; the old key stops working, the new one works", async () => {
    const first = await keyPair('k1');
    const created = await createWithKeys(first.jwk);
    const second = await keyPair('k2');
    const changed = await fetch(`${service.baseUrl}/v1/credential/${created.client_id}`, {
      method: 'PATCH',
      headers: { ...asAlice, authorization: `Bearer ${login}` },
      body: JSON.stringify({ jwks: { keys: [second.jwk] } }),
    });
    expect(changed.status).toBe(200);
    const old = await clientFor(created.client_id, first.privateKey, 'k1');
    expect(
      (await failureOf(oauth.clientCredentialsGrant(old.config, { audience: AUDIENCE })))?.error,
    ).toBe('invalid_client');
    const next = await clientFor(created.client_id, second.privateKey, 'k2');
    const tokens = await oauth.clientCredentialsGrant(next.config, { audience: AUDIENCE });
    expect(tokens.access_token).toBeTruthy();
    const { rows } = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events
        WHERE event_type = 'credential-keys-changed' AND data->>'client_id' = $1`,
      [created.client_id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('a secret never authenticates a client created with keys, and keys never get a secret', async () => {
    const { jwk } = await keyPair('k1');
    const created = await createWithKeys(jwk);
    const withSecret = await service.post('/v1/credential/token', {
      client_id: created.client_id,
      client_secret: 'cs_anything',
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    });
    expect(withSecret.status).toBe(401);
    const rotate = await fetch(`${service.baseUrl}/v1/credential/${created.client_id}/secret`, {
      method: 'POST',
      headers: { ...asAlice, authorization: `Bearer ${login}` },
      body: '{}',
    });
    expect(rotate.status).toBe(400);
  });

  it('an assertion is for the issuer identifier alone: an endpoint URL or an array aud is refused', async () => {
    const { jwk, privateKey } = await keyPair('k1');
    const created = await createWithKeys(jwk);
    const assertion = (aud: string | string[]) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(created.client_id)
        .setSubject(created.client_id)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(privateKey);
    const grant = async (aud: string | string[]) =>
      (
        await service.post('/v1/credential/token', {
          grant_type: 'client_credentials',
          audience: AUDIENCE,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: await assertion(aud),
        })
      ).status;
    expect(await grant(`${ISSUER}/v1/credential/token`)).toBe(401);
    expect(await grant([ISSUER])).toBe(401);
    expect(await grant([ISSUER, 'https://elsewhere.example'])).toBe(401);
    expect(await grant(ISSUER)).toBe(200);
  });

  it('hostile input gets a 4xx that says what is wrong, never a 500', async () => {
    const create = (jwks: unknown) =>
      fetch(`${service.baseUrl}/v1/credential`, {
        method: 'POST',
        headers: { ...asAlice, authorization: `Bearer ${login}` },
        body: JSON.stringify({ name: 'x', description: 'y', jwks }),
      });
    const { jwk, privateKey } = await keyPair('k1');
    const withPrivate = { ...jwk, d: 'AAAA' };
    expect((await create({ keys: [withPrivate] })).status).toBe(400);
    const offCurve = await create({ keys: [{ ...jwk, x: 'AAAA', y: 'BBBB' }] });
    expect(offCurve.status).toBe(400);
    expect(await offCurve.text()).toContain('usable public JWK');
    expect((await create({ keys: [] })).status).toBe(400);

    const created = await createWithKeys(jwk);
    const token = (body: Record<string, string>) =>
      fetch(`${service.baseUrl}/v1/credential/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          audience: AUDIENCE,
          ...body,
        }),
      });
    const type = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
    const garbage = await token({ client_assertion_type: type, client_assertion: 'not.a.jwt' });
    expect(garbage.status).toBe(401);
    expect(await garbage.json()).toMatchObject({ error: 'invalid_client' });
    const wrongType = await token({ client_assertion_type: 'urn:x', client_assertion: 'a.b.c' });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.text()).toContain('client_assertion_type');
    const { config } = await clientFor(created.client_id, privateKey, 'k1');
    const both = await token({
      client_id: created.client_id,
      client_secret: 'cs_x',
      client_assertion_type: type,
      client_assertion: 'a.b.c',
    });
    expect(both.status).toBe(400);
    expect(config).toBeDefined();
  });
});
