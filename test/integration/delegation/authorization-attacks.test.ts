import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import {
  agentKey,
  startLocalDocuments,
  type LocalDocuments,
} from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import {
  adminCall,
  AUDIENCE,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * A hostile review of issue 64's authorization endpoint (stop 75): each test is an attack that
 * worked before its mend, or one that was tried and held.
 */
const SPACE = 'space-authz-attacks';
const BUDGET_SPACE = 'space-authz-budget';
const OURS = 'http://token-authority.test';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const SCOPES = ['products:read', 'cart:write'];
const CONSENT_PAGE = 'https://shop.example/consent';
const CALLBACK = 'http://127.0.0.1:51234/callback';
const OTHER_AUDIENCE = 'https://other.test/api';

let service: TestService;
let docs: LocalDocuments;
let key: Awaited<ReturnType<typeof agentKey>>;
/** A public agent (none, no keys) and a confidential one (private_key_jwt, keys, redirect URIs). */
let publicAgent: string;
let keyedAgent: string;
const parties = delegationParties(() => service, SPACE);

const browse = (url: string, cookie?: string) => {
  const { pathname, search } = new URL(url, service.baseUrl);
  return fetch(new URL(pathname + search, service.baseUrl), {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
};

/** Calls about a request with `token` (any private token), as a storefront's server makes them. */
const withToken = (token: string) => {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(new URL(path, service.baseUrl), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    read: (id: string) => call('GET', `/v1/authorization-requests/${id}`),
    accept: (id: string, body: Record<string, unknown> = {}) =>
      call('POST', `/v1/authorization-requests/${id}/accept`, {
        customer_id: 'c-7',
        segment_id: 'vip',
        ...body,
      }),
    reject: (id: string) => call('POST', `/v1/authorization-requests/${id}/reject`, {}),
  };
};

const storefront = async (scopes = SCOPES) =>
  withToken(await parties.privateToken(await parties.credential(SCOPES), scopes));

async function start(
  overrides: Record<string, string | undefined> = {},
  space = SPACE,
  clientId = publicAgent,
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const parameters = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: SCOPES.join(' '),
    state: oauth.generateRandomState(),
    ...overrides,
  };
  const query = new URLSearchParams(
    Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const response = await browse(`/spaces/${space}/authorize?${query}`);
  const location = response.headers.get('location') ?? '';
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const requestId = location.startsWith(CONSENT_PAGE)
    ? new URL(location).searchParams.get('authorization_request')!
    : '';
  return { response, location, cookie, requestId, verifier, state: parameters.state };
}

const codeOf = (response: Response) =>
  new URL(response.headers.get('location')!).searchParams.get('code')!;

const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  service.post('/v1/credential/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: publicAgent,
    redirect_uri: CALLBACK,
    ...extra,
  });

/** The keyed agent's own private token (client_credentials, private_key_jwt), in `space`. */
async function agentPrivateToken(clientId: string, space = SPACE) {
  const response = await fetch(`${service.baseUrl}/v1/credential/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-service-space-id': space,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await key.assert(clientId, OURS),
      audience: AUDIENCE,
      scope: SCOPES.join(' '),
    }),
  });
  return { status: response.status, body: (await response.json()) as { access_token: string } };
}

const introspect = async (token: string) => {
  const response = await service.post('/v1/introspect', {
    ...(await parties.credential(SCOPES)),
    token,
  });
  return (await response.json()) as { active: boolean };
};

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
    TOKEN_AUDIENCES: `${AUDIENCE},${OTHER_AUDIENCE}`,
  });
  docs = await startLocalDocuments();
  key = await agentKey();
  publicAgent = `https://localhost:${docs.port}/agents/public.json`;
  docs.serve('/agents/public.json', {
    body: {
      client_id: publicAgent,
      client_name: 'Shopping agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  keyedAgent = `https://localhost:${docs.port}/agents/keyed.json`;
  docs.serve('/agents/keyed.json', {
    body: {
      client_id: keyedAgent,
      client_name: 'Keyed agent',
      jwks: key.jwks,
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  for (const [space, domain, budget] of [
    [SPACE, 'localhost', undefined],
    [BUDGET_SPACE, '127.0.0.1', 3],
  ] as const) {
    const allowed = await adminCall(service, space, 'POST', '/v1/metadata-client-domains', {
      domain,
      scopes: SCOPES,
      ...(budget === undefined ? {} : { budget_per_minute: budget }),
    });
    expect(allowed.status).toBe(201);
    const app = await adminCall(service, space, 'POST', '/v1/authorization-app', {
      interaction_url: CONSENT_PAGE,
    });
    expect(app.status).toBe(200);
  }
});

describe('authorization endpoint attacks', () => {
  it('an agent known by its metadata document cannot consent for a customer with its own private token', async () => {
    const started = await start();
    expect(started.response.status, await started.response.clone().text()).toBe(302);
    // A keyed agent of an allowed domain gets a private token of the space by its keys …
    const own = await agentPrivateToken(keyedAgent);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // … which reads, accepts and rejects nothing: /v1/issue refuses it a customer's token too.
    const agentSide = withToken(own.body.access_token);
    for (const attempt of [
      agentSide.read(started.requestId),
      agentSide.accept(started.requestId, { customer_id: 'victim-customer' }),
      agentSide.reject(started.requestId),
    ]) {
      const response = await attempt;
      expect(response.status, await response.clone().text()).toBe(403);
    }
    expect(await (await (await storefront()).read(started.requestId)).json()).toMatchObject({
      status: 'pending',
    });
  });

  it('the browser that started a request cannot take the code for a consent given in another browser', async () => {
    // The attacker starts a request for a well-known agent in its own browser, and sends the
    // consent page's link (it names only the request id) to the victim, who signs in and accepts.
    const attacker = await start();
    const accepted = await (await storefront()).accept(attacker.requestId);
    expect(accepted.status).toBe(200);
    // The victim's browser, without the cookie, is refused at resume; the attacker's browser
    // builds the resume URL from the id it already knows, never having seen redirect_to.
    const resume = `${OURS}/spaces/${SPACE}/authorize/resume?authorization_request=${attacker.requestId}`;
    const taken = await browse(resume, attacker.cookie);
    expect(taken.status, taken.headers.get('location') ?? '').toBe(400);
  });

  it('a confidential (keyed) metadata client is refused at /authorize: it could not authenticate at redemption', async () => {
    const { response } = await start({}, SPACE, keyedAgent);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.json()).toMatchObject({
      detail: expect.stringMatching(/public clients/),
    });
  });

  it("anonymous /authorize requests do not spend the domain's budget its agents need", async () => {
    const publicThere = `https://127.0.0.1:${docs.port}/agents/public-ip.json`;
    docs.serve('/agents/public-ip.json', {
      body: {
        client_id: publicThere,
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    });
    const keyedThere = `https://127.0.0.1:${docs.port}/agents/keyed-ip.json`;
    docs.serve('/agents/keyed-ip.json', { body: { client_id: keyedThere, jwks: key.jwks } });
    // Anyone, no credentials, even with a redirect_uri the client never registered (a 400).
    for (let i = 0; i < 3; i++) {
      const { response } = await start(
        { redirect_uri: 'https://evil.example/' },
        BUDGET_SPACE,
        publicThere,
      );
      expect(response.status).toBe(400);
    }
    const token = await agentPrivateToken(keyedThere, BUDGET_SPACE);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
  });

  it("the consent is bounded by the storefront private token's scopes, as /v1/issue is", async () => {
    // The storefront's consent backend holds a private token narrowed to products:read.
    const narrow = await storefront(['products:read']);
    const started = await start();
    const accepted = await narrow.accept(started.requestId); // default: all scopes asked
    expect(accepted.status).toBe(400);
    expect(await accepted.json()).toMatchObject({ code: 'invalid_scope' });
    // What its token holds it may grant.
    const within = await narrow.accept(started.requestId, { scope: ['products:read'] });
    expect(within.status).toBe(200);
  });

  it("the consent is bounded by the storefront private token's audience, as /v1/issue is", async () => {
    const started = await start({ resource: OTHER_AUDIENCE, scope: undefined });
    expect(started.requestId).not.toBe('');
    const accepted = await (await storefront()).accept(started.requestId);
    expect(accepted.status).toBe(400);
    expect(await accepted.json()).toMatchObject({ code: 'invalid_target' });
  });

  it('resume with hostile request ids does not grow the process without bound', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const hammer = async (ids: (i: number) => string, count: number) => {
      for (let i = 0; i < count; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            browse(
              `/spaces/${SPACE}/authorize/resume?authorization_request=${ids(i + j)}&resume=${'r'.repeat(43)}`,
              'x=1',
            ).then((r) => r.arrayBuffer()),
          ),
        );
      }
      gc();
      return v8.getHeapStatistics().used_heap_size;
    };
    const n = 10_000;
    const pad = 'p'.repeat(40);
    const base = await hammer(() => `ar_same${pad}`, n);
    const after = await hammer((i) => `ar_${i}${pad}`, n);
    // Each distinct cookie name read would leave a RegExp in the cookies module's cache forever
    // (about 1.4 KB each): an id not of ours is refused before any cookie is read.
    expect(after - base).toBeLessThan(4_000_000);
  }, 300_000);

  it('authorization_details and scopes the event schema refuses are a redirect to the client, not a 5xx', async () => {
    const cases: Record<string, string>[] = [
      { authorization_details: '[]' },
      { authorization_details: JSON.stringify(Array.from({ length: 9 }, () => ({ type: 't' }))) },
      { authorization_details: JSON.stringify([{ type: 'x'.repeat(3000) }]) },
      { scope: Array.from({ length: 300 }, (_, i) => `s${i}`).join(' ') },
      { scope: 'x'.repeat(1000) },
    ];
    const statuses: string[] = [];
    for (const overrides of cases) {
      const { response } = await start(overrides);
      statuses.push(`${Object.values(overrides)[0]!.slice(0, 20)} -> ${response.status}`);
    }
    expect(statuses.filter((line) => line.endsWith('-> 500'))).toEqual([]);
  });

  it('holds: two concurrent redemptions issue at most one token, and it ends revoked', async () => {
    const started = await start();
    const accepted = await (await storefront()).accept(started.requestId);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const code = codeOf(await browse(redirect_to, started.cookie));
    const answers = await Promise.all([1, 2, 3].map(() => redeem(code, started.verifier)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    for (const response of ok) {
      const { access_token } = (await response.json()) as { access_token: string };
      expect(await introspect(access_token)).toMatchObject({ active: false });
    }
  });

  it('holds: a reload issues a new code and the earlier one is dead; the id alone forges nothing', async () => {
    const started = await start();
    const accepted = await (await storefront()).accept(started.requestId);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const first = codeOf(await browse(redirect_to, started.cookie));
    const second = codeOf(await browse(redirect_to, started.cookie));
    expect((await redeem(first, started.verifier)).status).toBe(400);
    const forged = `${started.requestId}.${'A'.repeat(43)}`;
    expect((await redeem(forged, started.verifier)).status).toBe(400);
    await parties.accessToken(await redeem(second, started.verifier));
  });

  it('holds: hostile query strings are 4xx, never 5xx, and never redirect elsewhere', async () => {
    const bad = [
      `/spaces/${SPACE}/authorize?client_id=%FF%FE&redirect_uri=https://evil.example/`,
      `/spaces/${SPACE}/authorize?client_id=${encodeURIComponent(publicAgent)}&client_id=x`,
      `/spaces/${SPACE}/authorize?client_id=${encodeURIComponent(publicAgent)}&redirect_uri=${encodeURIComponent(CALLBACK)}&redirect_uri=${encodeURIComponent('https://evil.example/')}`,
      `/spaces/${SPACE}/authorize?client_id=${encodeURIComponent(publicAgent)}&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/callback?x=1')}`,
      `/spaces/${SPACE}/authorize?client_id=${encodeURIComponent(publicAgent)}&redirect_uri=${encodeURIComponent('http://127.0.0.1.evil.example/callback')}`,
      `/spaces/${SPACE}/authorize?client_id=${encodeURIComponent(publicAgent)}&redirect_uri=${encodeURIComponent('http://user@127.0.0.1/callback')}`,
      `/spaces/${SPACE}/authorize/resume?authorization_request=%FF`,
      `/spaces/${SPACE}/authorize/resume?authorization_request=a&authorization_request=b`,
      `/spaces/nope/authorize?client_id=${encodeURIComponent(publicAgent)}`,
    ];
    for (const path of bad) {
      const response = await browse(path, 'ta_authz_a=b');
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.headers.get('location'), path).toBeNull();
    }
    // A huge state: refused to the client without it, no 5xx.
    const { response } = await start({ state: 'x'.repeat(5000) });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location')!).searchParams.get('state')).toBeNull();
  });

  it('holds: an accept with authorization_details the client never asked for is refused', async () => {
    const started = await start();
    const accepted = await (
      await storefront()
    ).accept(started.requestId, {
      authorization_details: [{ type: 'payment', amount: 1_000_000 }],
    });
    expect(accepted.status).toBe(400);
    expect(await (await (await storefront()).read(started.requestId)).json()).toMatchObject({
      status: 'pending',
    });
  });
});
