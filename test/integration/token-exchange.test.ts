import { calculateJwkThumbprint, createRemoteJWKSet, decodeJwt, exportJWK, jwtVerify } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../support/test-service.js';

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
    const bound = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: oauth.getDPoPHandle(config, keys) },
    );
    const withoutProof = await failureOf(exchange(config, bound.access_token));
    expect(withoutProof?.error).toBe('invalid_dpop_proof');
    const tokens = await exchange(
      config,
      bound.access_token,
      {},
      {
        DPoP: oauth.getDPoPHandle(config, keys),
      },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
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
