import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties, type Credential } from '../../support/delegation.js';
import { startLocalDocuments, type LocalDocuments } from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { adminCall, startTestService, type TestService } from '../../support/test-service.js';

/**
 * A hostile review of refresh tokens and consent records (issue 64). The first five tests each
 * failed against the code as first reviewed (docs/security-log.md, issue 64);
 * the others are attacks that held.
 */
const SPACE = 'space-refresh-attacks';
const OTHER_SPACE = 'space-refresh-attacks-other';
const SCOPES = ['products:read', 'cart:write'];
const CONSENT_PAGE = 'https://shop.example/consent';
const CALLBACK = 'http://127.0.0.1:51234/callback';
const ISSUER = 'http://token-authority.test';
const TOKEN_URL = `${ISSUER}/v1/credential/token`;
/** Short private tokens, to see what a consent keeps of its storefront token's revocation. */
const PRIVATE_TTL = 6;
/** Delegated tokens per agent per customer per window (DELEGATION_BUDGET). */
const BUDGET = 3;

let service: TestService;
let replica: TestService;
let docs: LocalDocuments;
let agent: string;
const parties = delegationParties(() => service, SPACE);
const iss = (space = SPACE) => `${ISSUER}/spaces/${space}`;
const customer = (tag: string) => `c-${tag}-${randomBytes(4).toString('hex')}`;

const browse = (url: string, cookie?: string) => {
  const { pathname, search } = new URL(url, service.baseUrl);
  return fetch(new URL(pathname + search, service.baseUrl), {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
};

let shopCredential: Credential;

/** The storefront's server with a fresh private token (of `space`). */
async function storefront(space = SPACE, given?: Credential) {
  const own = space === SPACE ? parties : delegationParties(() => service, space);
  const credential = given ?? (space === SPACE ? shopCredential : await own.credential(SCOPES));
  const token = await own.privateToken(credential, SCOPES);
  const call = (method: string, path: string, body?: unknown) =>
    fetch(new URL(path, service.baseUrl), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    token,
    credential,
    call,
    accept: (id: string, body: Record<string, unknown> = {}) =>
      call('POST', `/v1/authorization-requests/${id}/accept`, {
        customer_id: 'c-7',
        segment_id: 'vip',
        ...body,
      }),
    consents: (who: string) => call('GET', `/v1/consents?customer_id=${encodeURIComponent(who)}`),
    revoke: (id: string) => call('POST', `/v1/consents/${id}/revoke`, {}),
  };
}
type Shop = Awaited<ReturnType<typeof storefront>>;

async function start() {
  const verifier = oauth.generateRandomCodeVerifier();
  const parameters = {
    response_type: 'code',
    client_id: agent,
    redirect_uri: CALLBACK,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: SCOPES.join(' '),
    state: oauth.generateRandomState(),
  };
  const response = await browse(`/spaces/${SPACE}/authorize?${new URLSearchParams(parameters)}`);
  const location = response.headers.get('location') ?? '';
  expect(location, await response.clone().text()).toMatch(/^https:\/\/shop\.example\/consent/);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const requestId = new URL(location).searchParams.get('authorization_request')!;
  return { cookie, requestId, verifier, state: parameters.state };
}

async function codeFor(accept: Record<string, unknown> = {}, shop?: Shop) {
  const started = await start();
  const accepted = await (shop ?? (await storefront())).accept(started.requestId, accept);
  expect(accepted.status, await accepted.clone().text()).toBe(200);
  const { redirect_to: resume } = (await accepted.json()) as { redirect_to: string };
  const back = await browse(resume, started.cookie);
  expect(back.status, await back.clone().text()).toBe(302);
  const params = oauth.validateAuthResponse(
    { issuer: iss(), authorization_response_iss_parameter_supported: true },
    { client_id: agent },
    new URL(back.headers.get('location')!),
    started.state,
  );
  return { ...started, code: params.get('code')! };
}

/** A DPoP key and its proofs for the token endpoint. */
async function dpopKey() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return () =>
    new SignJWT({
      jti: crypto.randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      htm: 'POST',
      htu: TOKEN_URL,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);
}
type Prover = Awaited<ReturnType<typeof dpopKey>>;

const post = async (body: Record<string, unknown>, proof?: Prover, via = service) =>
  via.post('/v1/credential/token', body, proof ? { dpop: await proof() } : {});

const redeem = (code: string, verifier: string, proof?: Prover) =>
  post(
    {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: agent,
      redirect_uri: CALLBACK,
    },
    proof,
  );

const refresh = (
  token: string,
  extra: Record<string, unknown> = {},
  proof?: Prover,
  via = service,
) =>
  post(
    { grant_type: 'refresh_token', refresh_token: token, client_id: agent, ...extra },
    proof,
    via,
  );

type Tokens = {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
};

async function tokensFor(accept: Record<string, unknown> = {}, proof?: Prover, shop?: Shop) {
  const flow = await codeFor(accept, shop);
  const response = await redeem(flow.code, flow.verifier, proof);
  const body = (await response.json()) as Tokens;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { ...flow, ...body };
}

const introspect = async (token: string) => {
  const response = await service.post('/v1/introspect', { ...shopCredential, token });
  return (await response.json()) as { active: boolean };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
    PRIVATE_TOKEN_TTL_SECONDS: String(PRIVATE_TTL),
    DELEGATION_BUDGET: String(BUDGET),
  });
  // A second replica on the same database, as a load balancer would spread a client's calls.
  replica = await startTestService(
    {
      SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
      FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
      PRIVATE_TOKEN_TTL_SECONDS: String(PRIVATE_TTL),
      DELEGATION_BUDGET: String(BUDGET),
    },
    undefined,
    { database: service.database, dataDir: service.dataDir },
  );
  docs = await startLocalDocuments();
  agent = `https://localhost:${docs.port}/agents/refresh.json`;
  docs.serve('/agents/refresh.json', {
    body: {
      client_id: agent,
      client_name: 'Shopping agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  for (const space of [SPACE, OTHER_SPACE]) {
    const allowed = await adminCall(service, space, 'POST', '/v1/metadata-client-domains', {
      domain: 'localhost',
      scopes: SCOPES,
    });
    expect(allowed.status).toBe(201);
    const app = await adminCall(service, space, 'POST', '/v1/authorization-app', {
      interaction_url: CONSENT_PAGE,
    });
    expect(app.status).toBe(200);
  }
  shopCredential = await parties.credential(SCOPES);
}, 120_000);

describe('refresh token attacks', () => {
  it('a refresh refused by the delegation budget (429) leaves the refresh token standing: the retry is no reuse', async () => {
    const tokens = await tokensFor({ customer_id: customer('budget') }); // 1 of BUDGET
    let current = tokens.refresh_token;
    let access = tokens.access_token;
    for (let spent = 1; spent < BUDGET; spent += 1) {
      const body = (await (await refresh(current)).json()) as Tokens;
      current = body.refresh_token;
      access = body.access_token;
    }
    const limited = await refresh(current);
    expect(limited.status, await limited.clone().text()).toBe(429);
    // The client does what 429 and Retry-After say: the same request again, later.
    const retried = await refresh(current);
    const answer = (await retried.json()) as { error?: string; error_description?: string };
    // Expected: still 429 (or 200 after the window); the consent and its live token untouched.
    expect(answer.error_description ?? '').not.toMatch(/replaced before/);
    expect(await introspect(access)).toMatchObject({ active: true });
  });

  it("revoking the storefront's private token voids its consents past that token's own end", async () => {
    const shop = await storefront();
    const tokens = await tokensFor({ customer_id: customer('parent') }, undefined, shop);
    const revoked = await service.post('/v1/revoke', { ...shop.credential, token: shop.token });
    expect(revoked.status).toBe(200);
    // At once, the consent's access token is void (parent_jti): that much holds.
    expect(await introspect(tokens.access_token)).toMatchObject({ active: false });
    // The revocation row ends with the private token (PRIVATE_TTL seconds): then the year-long
    // consent accepted with the revoked token buys tokens again.
    const ends = decodeJwt(shop.token).exp! * 1000;
    await sleep(Math.max(0, ends - Date.now()) + 2500);
    const after = await refresh(tokens.refresh_token);
    const body = (await after.json()) as Tokens;
    expect(after.status, JSON.stringify(body)).toBe(400);
  }, 30_000);

  it('a refresh token without its secret does not tell apart a DPoP-bound consent', async () => {
    const proof = await dpopKey();
    const tokens = await tokensFor({ customer_id: customer('oracle') }, proof);
    // Only the request id is known (it is in the consent list, the resume URL, the consent page).
    const guess = `${tokens.requestId}.${randomBytes(32).toString('base64url')}`;
    const unknown = `ar_${randomBytes(16).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    const describe = async (token: string, extra: Record<string, unknown> = {}) => {
      const body = (await (await refresh(token, extra)).json()) as Record<string, string>;
      return `${body.error}: ${body.error_description}`;
    };
    // A wrong secret must read exactly as an unknown token.
    expect(await describe(guess)).toBe(await describe(unknown));
  });

  it('a refresh token without its secret does not tell apart an existing request, nor test its resource', async () => {
    const tokens = await tokensFor({ customer_id: customer('oracle-resource') });
    const guess = `${tokens.requestId}.${randomBytes(32).toString('base64url')}`;
    const unknown = `ar_${randomBytes(16).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    const describe = async (token: string, extra: Record<string, unknown> = {}) => {
      const body = (await (await refresh(token, extra)).json()) as Record<string, string>;
      return `${body.error}: ${body.error_description}`;
    };
    const resource = { resource: 'https://elsewhere.example/' };
    expect(await describe(guess, resource)).toBe(await describe(unknown, resource));
  });

  it("dead consents (revoked, replayed) never crowd a customer's live consent out of the list", async () => {
    const who = customer('crowd');
    const live = await tokensFor({ customer_id: who, expires_in: 3600 });
    const dead = await tokensFor({ customer_id: who, expires_in: 365 * 24 * 3600 });
    const shop = await storefront();
    expect((await shop.revoke(dead.requestId)).status).toBe(200);
    // 200 more withdrawn year-long consents for the customer, as their rows are left (the
    // /authorize budget of 30 a minute makes the real flows slow, not impossible).
    const { rows } = await service.database.pool.query(
      'SELECT space_id, state, version, expires_at FROM authorization_states WHERE key = $1',
      [`request-${dead.requestId}`],
    );
    const row = rows[0] as { space_id: string; state: unknown; version: number; expires_at: Date };
    for (let n = 0; n < 200; n += 1) {
      await service.database.pool.query(
        'INSERT INTO authorization_states (space_id, key, state, version, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [
          row.space_id,
          `request-ar_dead${String(n).padStart(19, '0')}`,
          row.state,
          row.version,
          row.expires_at,
        ],
      );
    }
    const listed = (await (await shop.consents(who)).json()) as {
      consents: Array<{ consent_id: string }>;
    };
    expect(listed.consents.map((c) => c.consent_id)).toEqual([live.requestId]);
  });
});

describe('refresh token attacks that held', () => {
  it('two concurrent refreshes with one token on two replicas: exactly one gets a token', async () => {
    for (let round = 0; round < 5; round += 1) {
      const proof = await dpopKey();
      const tokens = await tokensFor({ customer_id: customer('race') }, proof);
      const [a, b] = await Promise.all([
        refresh(tokens.refresh_token, {}, proof, service),
        refresh(tokens.refresh_token, {}, proof, replica),
      ]);
      const statuses = [a.status, b.status].sort();
      const bodies = [await a.text(), await b.text()];
      expect(statuses, bodies.join('\n')).toEqual([200, 400]);
      // The loser is a reuse by the key holder itself: the consent is revoked (reported as a note).
      const winner = JSON.parse(bodies[a.status === 200 ? 0 : 1]!) as Tokens;
      const loser = JSON.parse(bodies[a.status === 200 ? 1 : 0]!) as { error_description: string };
      expect(loser.error_description).toMatch(/replaced before/);
      // Each replica learns the other's revocation within REVOCATION_REFRESH_MS.
      await sleep(1000);
      expect(await introspect(winner.access_token)).toMatchObject({ active: false });
      expect((await refresh(winner.refresh_token, {}, proof)).status).toBe(400);
    }
  }, 60_000);

  it('DPoP: no proof or another key refreshes nothing, revokes nothing and spends nothing', async () => {
    const proof = await dpopKey();
    const thief = await dpopKey();
    const tokens = await tokensFor({ customer_id: customer('dpop') }, proof);
    expect(tokens.token_type).toBe('DPoP');
    for (const by of [undefined, thief]) {
      const refused = await parties.refusal(await refresh(tokens.refresh_token, {}, by));
      expect(refused.error).toBe('invalid_grant');
    }
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true });
    const good = await refresh(tokens.refresh_token, {}, proof);
    const body = (await good.json()) as Tokens;
    expect(good.status, JSON.stringify(body)).toBe(200);
    expect(body.token_type).toBe('DPoP');
    // A retired token with another key: refused, revokes nothing.
    expect((await refresh(tokens.refresh_token, {}, thief)).status).toBe(400);
    expect(await introspect(body.access_token)).toMatchObject({ active: true });
  });

  it("a storefront that asks for DPoP (require_dpop) gets it for its consents' tokens too", async () => {
    const created = await adminCall(service, SPACE, 'POST', '/v1/credential', {
      name: 'bound shop',
      description: 'every public token DPoP-bound',
      scopes: SCOPES,
      require_dpop: true,
    });
    expect(created.status).toBe(201);
    const shop = await storefront(SPACE, (await created.json()) as Credential);
    const unbound = await codeFor({ customer_id: customer('bound') }, shop);
    const refused = await redeem(unbound.code, unbound.verifier);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await refused.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    const bound = await codeFor({ customer_id: customer('bound') }, shop);
    const answered = await redeem(bound.code, bound.verifier, await dpopKey());
    const body = (await answered.json()) as Tokens;
    expect(answered.status, JSON.stringify(body)).toBe(200);
    expect(body.token_type).toBe('DPoP');
  });

  it('scope widening, another client, another resource: refused without spending the token', async () => {
    const tokens = await tokensFor({ customer_id: customer('scope'), scope: ['products:read'] });
    for (const extra of [
      { scope: 'products:read cart:write' },
      { scope: 'orders:read' },
      { client_id: `${agent}x` },
      { resource: 'other.test' },
    ]) {
      const response = await refresh(tokens.refresh_token, extra);
      expect(response.status, JSON.stringify(extra)).toBe(400);
    }
    const good = (await (await refresh(tokens.refresh_token)).json()) as Tokens;
    expect(decodeJwt(good.access_token).scope).toBe('products:read');
  });

  it("no access token outlives the consent; another space's storefront neither lists nor revokes it", async () => {
    const who = customer('short');
    const tokens = await tokensFor({ customer_id: who, expires_in: 60 });
    const ends = Math.floor(Date.now() / 1000) + 60;
    expect(decodeJwt(tokens.access_token).exp!).toBeLessThanOrEqual(ends);
    const next = (await (await refresh(tokens.refresh_token)).json()) as Tokens;
    expect(decodeJwt(next.access_token).exp!).toBeLessThanOrEqual(ends);
    const foreign = await storefront(OTHER_SPACE);
    expect(await (await foreign.consents(who)).json()).toEqual({ consents: [] });
    const theirs = await foreign.revoke(tokens.requestId);
    const unknown = await foreign.revoke(`ar_${randomBytes(16).toString('base64url')}`);
    expect(theirs.status).toBe(404);
    const detail = (r: { code: string; detail: string }) => `${r.code}: ${r.detail}`;
    expect(detail(await theirs.json())).toBe(detail(await unknown.json()));
    expect(await introspect(next.access_token)).toMatchObject({ active: true });
  });

  it("revoking the storefront's credential ends the consent's refreshes", async () => {
    const own = await parties.credential(SCOPES);
    const shop = await storefront();
    const token = await parties.privateToken(own, SCOPES);
    const tokens = await tokensFor({ customer_id: customer('cred') }, undefined, {
      ...shop,
      accept: (id: string, body: Record<string, unknown> = {}) =>
        fetch(new URL(`/v1/authorization-requests/${id}/accept`, service.baseUrl), {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ customer_id: 'c-7', segment_id: 'vip', ...body }),
        }),
    });
    const gone = await adminCall(service, SPACE, 'DELETE', `/v1/credential/${own.client_id}`);
    expect(gone.status, await gone.clone().text()).toBeLessThan(300);
    expect((await refresh(tokens.refresh_token)).status).toBe(400);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: false });
  });

  it('huge or malformed input is a 4xx with a body, never a 500', async () => {
    const long = 'a'.repeat(100_000);
    const bodies: Array<Record<string, unknown>> = [
      { refresh_token: long },
      { refresh_token: `ar_x.${long}` },
      { refresh_token: ['a', 'b'] },
      { refresh_token: { a: 1 } },
      { refresh_token: `${'a'.repeat(64)}.${'b'.repeat(43)}` },
      {
        refresh_token: `ar_${randomBytes(16).toString('base64url')}.${'b'.repeat(43)}`,
        scope: long,
      },
      {
        refresh_token: `ar_${randomBytes(16).toString('base64url')}.${'b'.repeat(43)}`,
        resource: long,
      },
      { refresh_token: 'x.y', client_id: long },
    ];
    for (const body of bodies) {
      const response = await post({ grant_type: 'refresh_token', client_id: agent, ...body });
      const text = await response.text();
      expect(response.status, text.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(response.status, text.slice(0, 200)).toBeLessThan(500);
      expect(text.length).toBeGreaterThan(0);
    }
    const shop = await storefront();
    for (const response of [
      await shop.consents(long),
      await shop.call('GET', '/v1/consents'),
      await shop.call('GET', '/v1/consents?customer_id=a&customer_id=b'),
      await shop.revoke('not-an-id'),
      await shop.revoke(`ar_${'a'.repeat(5000)}`),
    ]) {
      const text = await response.text();
      expect(response.status, text.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(response.status, text.slice(0, 200)).toBeLessThan(500);
    }
  });

  // Last: it spends OTHER_SPACE's /authorize budget for this address, which no other test uses.
  it('the /authorize budget holds across replicas: 30 a minute per space, domain and address', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: agent,
      redirect_uri: CALLBACK,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const target = i % 2 === 0 ? service : replica;
      const url = new URL(`/spaces/${OTHER_SPACE}/authorize?${query}`, target.baseUrl);
      statuses.push((await fetch(url, { redirect: 'manual' })).status);
      // Past one sync interval (20 ms) and NOTIFY's delivery: each replica has heard the other.
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const served = statuses.filter((status) => status === 302).length;
    expect(served, JSON.stringify(statuses)).toBeLessThanOrEqual(32);
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);
  });
});
