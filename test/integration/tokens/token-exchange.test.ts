import { createHash } from 'node:crypto';
import {
  SignJWT,
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  exportJWK,
  jwtVerify,
} from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * RFC 8693 token exchange at the token endpoint, registered like any grant, driven by
 * openid-client's generic grant request, unchanged: a client's private token buys a public
 * token, the same decision, event and token as POST /v1/issue.
 */
const SPACE = 'space-exchange';
const ISSUER = 'http://token-authority.test';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ FAILED_AUTH_LIMIT_PER_MINUTE: '1000' });
});

/** openid-client from our discovery document; the space header added as a deployment would. */
async function clientFor(credential: { client_id: string; client_secret: string }) {
  const config = await oauth.discovery(
    new URL(ISSUER),
    credential.client_id,
    undefined,
    oauth.ClientSecretBasic(credential.client_secret),
    {
      execute: [oauth.allowInsecureRequests],
      [oauth.customFetch]: (url, options) =>
        fetch(url.replace(ISSUER, service.baseUrl), {
          ...(options as RequestInit),
          headers: { ...options.headers, 'x-service-space-id': SPACE },
        }),
    },
  );
  return config;
}

const exchange = (
  config: oauth.Configuration,
  subjectToken: string,
  extra: Record<string, string> = {},
  options?: oauth.DPoPOptions,
) =>
  oauth.genericGrantRequest(
    config,
    TOKEN_EXCHANGE,
    {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      customer_id: 'c-42',
      segment_id: 'vip',
      ...extra,
    },
    options,
  );

/** A token exchange with a DPoP proof made by hand (claims a library would not put in one). */
async function exchangeWithProof(
  subjectToken: string,
  keys: CryptoKeyPair,
  claims: Record<string, unknown>,
) {
  const proof = await new SignJWT({
    jti: crypto.randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    htm: 'POST',
    htu: `${ISSUER}/v1/credential/token`,
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .sign(keys.privateKey);
  return service.post(
    '/v1/credential/token',
    {
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      customer_id: 'c-42',
      segment_id: 'vip',
    },
    { 'x-service-space-id': SPACE, dpop: proof },
  );
}

/** RFC 9449 §4.2: base64url SHA-256 of the token, computed here as a resource server would. */
const accessTokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { status?: number; error?: string },
  );

describe('RFC 8693 token exchange with openid-client', () => {
  it('discovery advertises it; a private token buys a public token, recorded as /v1/issue records it', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const config = await clientFor(credential);
    expect(config.serverMetadata().grant_types_supported).toContain(TOKEN_EXCHANGE);
    const privateToken = await privateTokenVia(service, credential);
    const tokens = await exchange(config, privateToken);
    expect(tokens.issued_token_type).toBe(ACCESS_TOKEN);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    // Verified as a resource server would: against the JWKS endpoint.
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({
      token_kind: 'public',
      customer_id: 'c-42',
      segment_id: 'vip',
      client_id: credential.client_id,
      parent_jti: decodeJwt(privateToken).jti,
      act: { sub: credential.client_id },
    });
    const { rows } = await service.database.pool.query<{ actor: string }>(
      `SELECT actor FROM audit_log WHERE event_type = 'public-token-issued' AND jti = $1`,
      [payload.jti],
    );
    expect(rows).toEqual([{ actor: `client:${credential.client_id}` }]);
  });

  it('a bad subject token is invalid_grant; another client authenticating is refused', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const config = await clientFor(credential);
    const privateToken = await privateTokenVia(service, credential);
    expect((await failureOf(exchange(config, `${privateToken.slice(0, -4)}AAAA`)))?.error).toBe(
      'invalid_grant',
    );
    const other = await createCredentialVia(service, SPACE);
    const otherConfig = await clientFor(other);
    expect((await failureOf(exchange(otherConfig, privateToken)))?.error).toBe('invalid_grant');
    // Another space than the token's: invalid_grant too.
    const elsewhere = await createCredentialVia(service, 'space-elsewhere');
    const foreign = await privateTokenVia(service, elsewhere);
    expect((await failureOf(exchange(config, foreign)))?.error).toBe('invalid_grant');
    // Without client authentication, the private token alone is the authority (as on /v1/issue).
    const response = await service.post(
      '/v1/credential/token',
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: privateToken,
        subject_token_type: ACCESS_TOKEN,
        customer_id: 'c',
        segment_id: 's',
      },
      { 'x-service-space-id': SPACE },
    );
    expect(response.status).toBe(200);
    const missing = await service.post('/v1/credential/token', {
      grant_type: TOKEN_EXCHANGE,
      subject_token: privateToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    });
    expect(missing.status).toBe(400);
    const problem = (await missing.json()) as { error: string; error_description: string };
    expect(problem.error).toBe('invalid_request');
    expect(problem.error_description).toMatch(/subject_token_type|customer_id/);
  });

  it('a DPoP proof binds the public token; a bound subject token needs a proof by its key', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const config = await clientFor(credential);
    const keys = await oauth.randomDPoPKeyPair('ES256');
    const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
    // A bearer subject token: the proof (openid-client's, as for any token request) binds.
    const bearer = await privateTokenVia(service, credential);
    const tokens = await exchange(config, bearer, {}, { DPoP: oauth.getDPoPHandle(config, keys) });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const bound = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: oauth.getDPoPHandle(config, keys) },
    );
    const withoutProof = await failureOf(exchange(config, bound.access_token));
    expect(withoutProof?.error).toBe('invalid_dpop_proof');
    const other = await oauth.randomDPoPKeyPair('ES256');
    const byAnotherKey = await exchangeWithProof(bound.access_token, other, {
      ath: accessTokenHash(bound.access_token),
    });
    expect(await byAnotherKey.json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it('a DPoP-bound subject token is exchanged only with a proof whose ath is its hash', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const config = await clientFor(credential);
    const keys = await oauth.randomDPoPKeyPair('ES256');
    const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
    const bound = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: oauth.getDPoPHandle(config, keys) },
    );
    // A proof by the right key but made for no token (openid-client's, as for any token
    // request), or for another token, buys nothing with the subject token.
    const noAth = await failureOf(
      exchange(config, bound.access_token, {}, { DPoP: oauth.getDPoPHandle(config, keys) }),
    );
    expect(noAth?.error).toBe('invalid_dpop_proof');
    const wrongAth = await exchangeWithProof(bound.access_token, keys, {
      ath: accessTokenHash(`${bound.access_token}x`),
    });
    expect(wrongAth.status).toBe(400);
    expect(await wrongAth.json()).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: expect.stringContaining('ath'),
    });
    const withAth = await exchangeWithProof(bound.access_token, keys, {
      ath: accessTokenHash(bound.access_token),
    });
    expect(withAth.status).toBe(200);
    const issued = (await withAth.json()) as { access_token: string; token_type: string };
    expect(issued.token_type).toBe('DPoP');
    expect(decodeJwt(issued.access_token).cnf).toEqual({ jkt });
  });

  it('what it does not do is refused, not ignored: another target, an actor, a scope (RFC 8693 §2.1)', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const config = await clientFor(credential);
    const privateToken = await privateTokenVia(service, credential);
    const refusals: [Record<string, string>, string][] = [
      [{ audience: 'evil.example' }, 'invalid_target'],
      // Configured, and client_credentials would issue for it; the exchange buys the subject's.
      [{ audience: 'other.test' }, 'invalid_target'],
      [{ resource: 'https://evil.example/api' }, 'invalid_target'],
      [{ audience: AUDIENCE, resource: 'https://evil.example/api' }, 'invalid_target'],
      [{ actor_token: 'garbage', actor_token_type: ACCESS_TOKEN }, 'invalid_request'],
      [{ actor_token: 'garbage' }, 'invalid_request'],
      [{ actor_token_type: ACCESS_TOKEN }, 'invalid_request'],
      [{ scope: 'orders:write' }, 'invalid_scope'],
    ];
    for (const [extra, error] of refusals) {
      const failure = (await failureOf(exchange(config, privateToken, extra))) as
        { status?: number; error?: string; error_description?: string } | undefined;
      expect(failure, JSON.stringify(extra)).toMatchObject({ status: 400, error });
      if (error === 'invalid_request') expect(failure?.error_description).toMatch(/delegation/);
    }
    // Naming what it buys anyway, or an empty scope, asks for nothing it does not do.
    const accepted: Record<string, string>[] = [
      { audience: AUDIENCE },
      { resource: AUDIENCE },
      { scope: '' },
    ];
    for (const extra of accepted) {
      const tokens = await exchange(config, privateToken, extra);
      expect(decodeJwt(tokens.access_token).aud, JSON.stringify(extra)).toBe(AUDIENCE);
    }
    // Nothing refused was recorded as issued.
    const { rows } = await service.database.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM events
        WHERE event_type = 'public-token-issued' AND data->>'client_id' = $1`,
      [credential.client_id],
    );
    expect(rows[0]?.count).toBe(3);
  });

  it('an unknown grant names every registered one', async () => {
    const response = await service.post('/v1/credential/token', { grant_type: 'password' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'unsupported_grant_type',
      error_description: expect.stringContaining(`client_credentials, ${TOKEN_EXCHANGE}`),
    });
  });
});
