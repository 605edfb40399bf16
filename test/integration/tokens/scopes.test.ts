import { createRemoteJWKSet, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { createVerifier } from '../../../src/verify/index.js';
import {
  AUDIENCE,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

// Issue 41: scopes from the operator's catalog, held by credentials, carried by tokens.
const SPACE = 'space-scopes';
const CATALOG = TEST_SCOPE_CATALOG;
const ENV = { SCOPE_CATALOG: JSON.stringify(CATALOG) };
const ISSUER = 'http://token-authority.test';

let service: TestService;
let second: TestService;
let login: string;

beforeAll(async () => {
  service = await startTestService(ENV);
  second = await startSecondInstance(service, ENV);
  login = await service.loginToken([SPACE], 'alice');
});

type Credential = { client_id: string; client_secret: string; scopes: string[] };
const asUser = { authorization: () => `Bearer ${login}`, 'x-service-space-id': SPACE };
const headers = () => ({ authorization: asUser.authorization(), 'x-service-space-id': SPACE });
const send = (method: string, path: string, body?: unknown, base = service) =>
  fetch(`${base.baseUrl}${path}`, {
    method,
    headers: { ...headers(), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const create = async (scopes?: string[]) => {
  const response = await send('POST', '/v1/credential', {
    name: 'shop',
    description: 'scoped',
    ...(scopes ? { scopes } : {}),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Credential;
};
const grant = (credential: Credential, scope?: string, base = service) =>
  base.post('/v1/credential/token', {
    client_id: credential.client_id,
    client_secret: credential.client_secret,
    audience: AUDIENCE,
    grant_type: 'client_credentials',
    ...(scope === undefined ? {} : { scope }),
  });
const tokenOf = async (credential: Credential, scope?: string) => {
  const response = await grant(credential, scope);
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; scope?: string };
};
const issue = (privateToken: string, scope?: string) =>
  service.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 's-1', ...(scope === undefined ? {} : { scope }) },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
const introspect = async (credential: Credential, token: string, base = service) => {
  const response = await base.post('/v1/introspect', {
    client_id: credential.client_id,
    client_secret: credential.client_secret,
    token,
  });
  return (await response.json()) as { active: boolean; scope?: string };
};
const jwks = () => createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
const claimsOf = async (token: string) =>
  (await jwtVerify(token, jwks(), { issuer: ISSUER, audience: AUDIENCE, typ: 'at+jwt' })).payload;
const eventsOfType = async (type: string, clientId: string) =>
  (
    await service.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE event_type = $1 AND data->>'client_id' = $2 ORDER BY global_position`,
      [type, clientId],
    )
  ).rows.map((row) => row.data);

describe('the catalog', () => {
  it('is listed by discovery (scopes_supported) and described in the OpenAPI document', async () => {
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual([
      'cart:write',
      'checkout:write',
      'orders:read',
      'products:read',
      // The service's own: stream management's (SSF 1.0 §8), granted by an admin.
      'ssf:streams',
    ]);
    const openapi = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as {
      components: {
        securitySchemes: {
          storefrontScopes: { flows: { clientCredentials: { scopes: Record<string, string> } } };
        };
      };
    };
    const described = openapi.components.securitySchemes.storefrontScopes.flows.clientCredentials;
    expect(Object.keys(described.scopes).sort()).toEqual(metadata.scopes_supported);
    expect(described.scopes['orders:read']).toContain('private tokens only');
  });
});

describe('credentials hold allowed scopes', () => {
  it('created with scopes shows them; created without, the defaults; an unknown scope is invalid_scope and records nothing', async () => {
    const scoped = await create(['orders:read', 'products:read']);
    expect(scoped.scopes).toEqual(['orders:read', 'products:read']);
    const read = (await (await send('GET', `/v1/credential/${scoped.client_id}`)).json()) as {
      scopes: string[];
    };
    expect(read.scopes).toEqual(['orders:read', 'products:read']);
    expect((await create()).scopes).toEqual(['cart:write', 'products:read']);

    const before = (await service.database.pool.query('SELECT count(*)::int AS n FROM events'))
      .rows[0].n;
    const refused = await send('POST', '/v1/credential', {
      name: 'x',
      description: 'y',
      scopes: ['orders:write'],
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'invalid_scope',
      detail: expect.stringContaining('"orders:write"'),
    });
    const after = (await service.database.pool.query('SELECT count(*)::int AS n FROM events'))
      .rows[0].n;
    expect(after).toBe(before);
  });
});

describe('tokens carry what was granted, never more', () => {
  it('client_credentials: asked within the credential (JSON or form), or the defaults; the response, the JWKS-verified claim, the event and introspection agree', async () => {
    const credential = await create(['orders:read', 'products:read', 'cart:write']);
    const asked = await tokenOf(credential, 'orders:read products:read');
    expect(asked.scope).toBe('orders:read products:read');
    expect((await claimsOf(asked.access_token)).scope).toBe('orders:read products:read');
    expect(await introspect(credential, asked.access_token)).toMatchObject({
      active: true,
      scope: 'orders:read products:read',
    });
    const defaults = await tokenOf(credential);
    expect(defaults.scope).toBe('cart:write products:read');

    const form = await fetch(`${service.baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${credential.client_id}:${credential.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        audience: AUDIENCE,
        scope: 'cart:write',
      }),
    });
    expect(((await form.json()) as { scope: string }).scope).toBe('cart:write');

    const scopes = (await eventsOfType('private-token-issued', credential.client_id)).map(
      (data) => data.scope,
    );
    expect(scopes).toEqual(['orders:read products:read', 'cart:write products:read', 'cart:write']);
  });

  it('client_credentials: a scope the credential does not hold, or no catalog lists, is invalid_scope naming it', async () => {
    const credential = await create(['products:read']);
    const notHeld = await grant(credential, 'products:read orders:read');
    expect(notHeld.status).toBe(400);
    expect(await notHeld.json()).toEqual({
      error: 'invalid_scope',
      error_description: 'scope "orders:read" is not allowed to this client',
    });
    const unknown = await grant(credential, 'admin:all');
    expect(((await unknown.json()) as { error_description: string }).error_description).toBe(
      `scope "admin:all" is not in the scope catalog of audience "${AUDIENCE}"`,
    );
    const malformed = await grant(credential, 'a"b');
    expect(((await malformed.json()) as { error: string }).error).toBe('invalid_scope');
    expect(await eventsOfType('private-token-issued', credential.client_id)).toEqual([]);
  });

  it('a public token: narrower than its private token; a private-only scope or one beyond it is invalid_scope', async () => {
    const credential = await create(['orders:read', 'products:read', 'cart:write']);
    const { access_token: privateToken } = await tokenOf(credential, 'products:read orders:read');
    const narrower = await issue(privateToken, 'products:read');
    expect(narrower.status).toBe(200);
    const body = (await narrower.json()) as { token: string; scope: string };
    expect(body.scope).toBe('products:read');
    expect((await claimsOf(body.token)).scope).toBe('products:read');
    expect(((await (await issue(privateToken)).json()) as { scope: string }).scope).toBe(
      'products:read',
    );
    for (const [scope, why] of [
      ['orders:read', 'may not be carried by a public token'],
      ['cart:write', 'is not held by the token this one is bought with'],
    ]) {
      const refused = await issue(privateToken, scope);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { detail: string }).detail).toContain(why);
    }
  });
});

describe('narrowing a credential reaches its live tokens', () => {
  it('on another replica: introspection and the verifier kit refuse a token carrying a removed scope within their bound; one without it stays good', async () => {
    const credential = await create(['products:read', 'cart:write']);
    const withCart = (await tokenOf(credential, 'cart:write products:read')).access_token;
    const withoutCart = (await tokenOf(credential, 'products:read')).access_token;
    const publicWithCart = (
      (await (await issue(withCart, 'cart:write')).json()) as {
        token: string;
      }
    ).token;
    expect((await introspect(credential, withCart, second)).active).toBe(true);
    const kit = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      kinds: ['private', 'public'],
      revocationRefreshSeconds: 0.2,
      fetch: (input, init) => fetch(String(input).replace(ISSUER, service.baseUrl), init),
    });
    const kitVerifies = (token: string) =>
      kit
        .verify({
          method: 'GET',
          url: 'https://shop.test/',
          header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined),
        })
        .then(
          () => 'ok',
          (error: { code: string }) => error.code,
        );
    expect(await kitVerifies(publicWithCart)).toBe('ok');

    const patched = await send('PATCH', `/v1/credential/${credential.client_id}`, {
      scopes: ['products:read'],
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { scopes: string[] }).scopes).toEqual(['products:read']);
    const [changed] = await eventsOfType('credential-scopes-changed', credential.client_id);
    expect(changed).toEqual({
      client_id: credential.client_id,
      scopes: ['products:read'],
      removed: ['cart:write'],
      changed_by: 'user:alice',
    });

    // The second replica's credential cache (1 s) and the kit's list (1 s cache, 0.2 s poll).
    await waitUntil(
      () => introspect(credential, withCart, second).then((r) => r.active),
      (active) => active === false,
      { timeoutMs: 8000, intervalMs: 100 },
    );
    await waitUntil(
      () => kitVerifies(publicWithCart),
      (verdict) => verdict === 'invalid_token',
      { timeoutMs: 8000, intervalMs: 100 },
    );
    expect(await introspect(credential, withoutCart, second)).toMatchObject({
      active: true,
      scope: 'products:read',
    });
    expect(await kitVerifies(withoutCart)).toBe('ok');
    // And no new token gets it.
    expect((await grant(credential, 'cart:write', second)).status).toBe(400);
  });
});

describe('a scope removed from the catalog leaves live tokens', () => {
  it('a restart with a narrower catalog: introspection, /v1/issue and token exchange refuse a token carrying it; one without it stays good', async () => {
    // Issue 51, item 12: the credential still held the scope, so its live tokens stood.
    const credential = await create(['products:read', 'cart:write']);
    const withCart = (await tokenOf(credential, 'cart:write products:read')).access_token;
    const withoutCart = (await tokenOf(credential, 'products:read')).access_token;
    const { 'cart:write': _removed, ...rest } = CATALOG[AUDIENCE];
    const narrower = await startSecondInstance(service, {
      SCOPE_CATALOG: JSON.stringify({ [AUDIENCE]: rest }),
    });
    const buy = (token: string) =>
      narrower.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 's-1' },
        { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE },
      );
    const exchange = (token: string) =>
      narrower.post(
        '/v1/credential/token',
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: token,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          customer_id: 'c-1',
          segment_id: 's-1',
        },
        { 'x-service-space-id': SPACE },
      );
    expect(await introspect(credential, withCart, narrower)).toEqual({ active: false });
    const bought = await buy(withCart);
    expect(bought.status).toBe(401);
    expect(((await bought.json()) as { detail: string }).detail).toContain('scope catalog');
    const exchanged = await exchange(withCart);
    expect(exchanged.status).toBe(400);
    expect(await exchanged.json()).toMatchObject({ error: 'invalid_grant' });
    // What the catalog still lists stands.
    expect(await introspect(credential, withoutCart, narrower)).toMatchObject({
      active: true,
      scope: 'products:read',
    });
    expect((await buy(withoutCart)).status).toBe(200);
    expect((await exchange(withoutCart)).status).toBe(200);
  });
});

describe('the evidence shows scopes', () => {
  it('GET /v1/audit/events?scope= finds the issuances granting it, and the per-scope rate view counts them per client', async () => {
    const credential = await create(['orders:read', 'products:read']);
    await tokenOf(credential, 'orders:read');
    await tokenOf(credential, 'orders:read products:read');
    await tokenOf(credential, 'products:read');
    const page = (await (
      await send('GET', `/v1/audit/events?scope=orders:read&client_id=${credential.client_id}`)
    ).json()) as {
      items: Array<{ event_type: string; details: { scope?: string; scopes?: string[] } }>;
    };
    expect(
      page.items.map((item) => [item.event_type, item.details.scope ?? item.details.scopes]),
    ).toEqual([
      ['credential-created', ['orders:read', 'products:read']],
      ['private-token-issued', 'orders:read'],
      ['private-token-issued', 'orders:read products:read'],
    ]);

    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
    const rates = (await (
      await send('GET', `/v1/monitoring/clients/${credential.client_id}/scopes`)
    ).json()) as { scopes: unknown[] };
    expect(rates.scopes).toEqual([
      { scope: 'orders:read', private_tokens: 2, public_tokens: 0 },
      { scope: 'products:read', private_tokens: 2, public_tokens: 0 },
    ]);
  });
});
