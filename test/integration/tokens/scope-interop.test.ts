import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAuthlibClient } from '../../support/authlib-python.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 41, interop: scopes (RFC 6749 §3.3) through unchanged clients, openid-client v6 and
 * Python's authlib, read back as a resource server reads them: the `scope` claim of a token
 * verified against the JWKS, and introspection (RFC 7662).
 */
const SPACE = 'space-scope-interop';
const ISSUER = 'http://token-authority.test';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/** The test audience's catalog: two public defaults, two public on request, one server-side. */
const CATALOG = {
  [AUDIENCE]: {
    'products:read': { description: 'Read products', public: true, default: true },
    'cart:write': { description: 'Change carts', public: true, default: true },
    'checkout:write': { description: 'Complete checkouts', public: true },
    'customer:read': { description: "Read the customer's own profile", public: true },
    'orders:read': { description: "Read every customer's orders" },
  },
};
const ALL_SCOPES = Object.keys(CATALOG[AUDIENCE]);

let service: TestService;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  service = await startTestService({ SCOPE_CATALOG: JSON.stringify(CATALOG) });
  jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
});

/** A credential of the space allowed `scopes` (absent: the catalog's defaults). */
async function credentialWith(scopes?: readonly string[]) {
  const response = await service.post(
    '/v1/credential',
    { name: 'interop client', description: 'scope interop', ...(scopes ? { scopes } : {}) },
    {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    },
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string; client_secret: string; scopes: string[] };
}

/** openid-client configured from our discovery document; the space header added as a deployment would. */
function clientFor(credential: { client_id: string; client_secret: string }) {
  return oauth.discovery(
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
}

/** The token as a resource server sees it: verified against the JWKS endpoint. */
async function verified(token: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, audience: AUDIENCE });
  return payload;
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { status?: number; error?: string; error_description?: string },
  );

/** Runs test/interop/authlib_client.py; its stdout is one JSON object. */
async function authlib(credential: { client_id: string; client_secret: string }, scope: string) {
  const answer = await runAuthlibClient('authlib_client.py', service.baseUrl, credential, [
    `--scope=${scope}`,
  ]);
  return answer as {
    token?: { access_token: string; token_type: string; scope?: string };
    introspection?: { active: boolean; scope?: string; client_id?: string };
    error?: string;
    error_description?: string;
  };
}

/** How many tokens a client was recorded as issued. */
async function issuedCount(clientId: string): Promise<number> {
  const { rows } = await service.database.pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM events
      WHERE event_type IN ('private-token-issued', 'public-token-issued')
        AND data->>'client_id' = $1`,
    [clientId],
  );
  return rows[0]!.count;
}

describe('scopes through unchanged clients (issue 41, item 7)', () => {
  it("openid-client's clientCredentialsGrant with scope: granted, in the JWKS-verified token and in introspection", async () => {
    const credential = await credentialWith(ALL_SCOPES);
    const config = await clientFor(credential);
    const tokens = await oauth.clientCredentialsGrant(config, {
      audience: AUDIENCE,
      scope: 'orders:read products:read',
    });
    expect(tokens.scope).toBe('orders:read products:read');
    expect((await verified(tokens.access_token)).scope).toBe('orders:read products:read');
    const introspection = await oauth.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({
      active: true,
      scope: 'orders:read products:read',
      client_id: credential.client_id,
    });
    // No scope asked: the audience's defaults the credential holds (granted text is sorted).
    const defaults = await oauth.clientCredentialsGrant(config, { audience: AUDIENCE });
    expect(defaults.scope).toBe('cart:write products:read');
    expect((await verified(defaults.access_token)).scope).toBe('cart:write products:read');
  });

  it('openid-client: a scope the catalog lacks, or the credential does not hold, is invalid_scope naming it', async () => {
    const defaultsOnly = await credentialWith();
    expect(defaultsOnly.scopes.sort()).toEqual(['cart:write', 'products:read']);
    const config = await clientFor(defaultsOnly);
    for (const scope of ['products:read inventory:read', 'orders:read']) {
      const failure = await failureOf(
        oauth.clientCredentialsGrant(config, { audience: AUDIENCE, scope }),
      );
      expect(failure, scope).toMatchObject({ status: 400, error: 'invalid_scope' });
      expect(failure?.error_description).toContain(scope.split(' ').at(-1));
    }
    expect(await issuedCount(defaultsOnly.client_id)).toBe(0);
  });

  it("authlib's OAuth2Session (client_credentials, form, HTTP Basic) with scope: granted, verified, introspected", async () => {
    const credential = await credentialWith(ALL_SCOPES);
    const result = await authlib(credential, 'orders:read products:read');
    expect(result.error, result.error_description).toBeUndefined();
    expect(result.token?.token_type.toLowerCase()).toBe('bearer');
    expect(result.token?.scope).toBe('orders:read products:read');
    const payload = await verified(result.token!.access_token);
    expect(payload).toMatchObject({
      scope: 'orders:read products:read',
      client_id: credential.client_id,
    });
    expect(result.introspection).toMatchObject({
      active: true,
      scope: 'orders:read products:read',
      client_id: credential.client_id,
    });
    // What the credential does not hold is refused to authlib as to anyone, and nothing issued.
    const narrow = await credentialWith(['products:read']);
    const refused = await authlib(narrow, 'products:read orders:read');
    expect(refused).toMatchObject({ error: 'invalid_scope' });
    expect(refused.error_description).toContain('orders:read');
    expect(await issuedCount(narrow.client_id)).toBe(0);
  });

  it("openid-client's genericGrantRequest token exchange: a narrower scope is granted, a wider one is invalid_scope", async () => {
    const credential = await credentialWith(ALL_SCOPES);
    const config = await clientFor(credential);
    const subject = await oauth.clientCredentialsGrant(config, {
      audience: AUDIENCE,
      scope: 'products:read cart:write orders:read',
    });
    const exchange = (scope: string) =>
      oauth.genericGrantRequest(config, TOKEN_EXCHANGE, {
        subject_token: subject.access_token,
        subject_token_type: ACCESS_TOKEN,
        customer_id: 'c-41',
        segment_id: 'vip',
        scope,
      });
    const narrowed = await exchange('products:read');
    expect(narrowed.scope).toBe('products:read');
    expect(await verified(narrowed.access_token)).toMatchObject({
      token_kind: 'public',
      scope: 'products:read',
      customer_id: 'c-41',
    });
    const introspection = await oauth.tokenIntrospection(config, narrowed.access_token);
    expect(introspection).toMatchObject({ active: true, scope: 'products:read' });
    const before = await issuedCount(credential.client_id);
    // checkout:write is public and the credential holds it, but the subject token does not.
    const wider = await failureOf(exchange('products:read checkout:write'));
    expect(wider).toMatchObject({ status: 400, error: 'invalid_scope' });
    expect(wider?.error_description).toContain('checkout:write');
    // orders:read the subject token holds, but a public token may not carry it.
    const server = await failureOf(exchange('orders:read'));
    expect(server).toMatchObject({ status: 400, error: 'invalid_scope' });
    expect(server?.error_description).toContain('orders:read');
    expect(await issuedCount(credential.client_id)).toBe(before);
  });
});
