import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import { listedStatus, projectStatusEntries } from '../../support/status-list.js';
import { startLocalDocuments, type LocalDocuments } from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import {
  adminCall,
  AUDIENCE,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 64, items 1 and 2: the authorization endpoint, headless. An agent known by its client ID
 * metadata document (a public client: `none`, redirect URIs) asks; the storefront's server reads
 * the request and accepts it for a customer; the code reaches only the browser that asked and
 * buys the delegated token a token exchange gives. Each refusal the issue lists is a test here.
 */
const SPACE = 'space-code-flow';
const OTHER_SPACE = 'space-code-flow-other';
const SCOPES = ['products:read', 'cart:write'];
const CONSENT_PAGE = 'https://shop.example/consent';
const CALLBACK = 'http://127.0.0.1:51234/callback';

let service: TestService;
let docs: LocalDocuments;
let agent: string;
const parties = delegationParties(() => service, SPACE);
const iss = (space = SPACE) => `${service.config.TOKEN_ISSUER}/spaces/${space}`;

/** A GET that does not follow redirects, with the browser's cookie when it has one. */
const browse = (url: string, cookie?: string) => {
  // The issuer's URLs name its public host: this test reaches it at its local address.
  const { pathname, search } = new URL(url, service.baseUrl);
  return fetch(new URL(pathname + search, service.baseUrl), {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
};

/** The storefront's server: its private token, and its calls about a request. */
async function storefront(space = SPACE) {
  const own = space === SPACE ? parties : delegationParties(() => service, space);
  const token = await own.privateToken(await own.credential(SCOPES), SCOPES);
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
    consents: (customer: string) =>
      call('GET', `/v1/consents?customer_id=${encodeURIComponent(customer)}`),
    revoke: (id: string) => call('POST', `/v1/consents/${id}/revoke`, {}),
  };
}

/** The agent starts: PKCE, state, its authorization URL; the browser is sent to the consent page. */
async function start(overrides: Record<string, string | undefined> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const parameters = {
    response_type: 'code',
    client_id: agent,
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
  const response = await browse(`/spaces/${SPACE}/authorize?${query}`);
  const location = response.headers.get('location') ?? '';
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const requestId = location.startsWith(CONSENT_PAGE)
    ? new URL(location).searchParams.get('authorization_request')!
    : '';
  return { response, location, cookie, requestId, verifier, state: parameters.state };
}

/** The whole way to a code: asked, accepted, the browser back with its cookie. */
async function codeFor(accept: Record<string, unknown> = {}) {
  const started = await start();
  const shop = await storefront();
  const accepted = await shop.accept(started.requestId, accept);
  expect(accepted.status, await accepted.clone().text()).toBe(200);
  const { redirect_to: resume } = (await accepted.json()) as { redirect_to: string };
  const back = await browse(resume, started.cookie);
  expect(back.status, await back.clone().text()).toBe(302);
  const as = { issuer: iss(), authorization_response_iss_parameter_supported: true };
  const params = oauth.validateAuthResponse(
    as,
    { client_id: agent },
    new URL(back.headers.get('location')!),
    started.state,
  );
  return { ...started, code: params.get('code')!, resume };
}

const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  service.post('/v1/credential/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: agent,
    redirect_uri: CALLBACK,
    ...extra,
  });

const refresh = (token: string, extra: Record<string, string> = {}) =>
  service.post('/v1/credential/token', {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: agent,
    ...extra,
  });

/** A redeemed code's access and refresh tokens. */
async function tokensFor(accept: Record<string, unknown> = {}) {
  const flow = await codeFor(accept);
  const response = await redeem(flow.code, flow.verifier);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { ...flow, ...body };
}

const introspect = async (token: string) => {
  const storefrontClient = await parties.credential(SCOPES);
  const response = await service.post('/v1/introspect', { ...storefrontClient, token });
  return (await response.json()) as { active: boolean };
};

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
  docs = await startLocalDocuments();
  agent = `https://localhost:${docs.port}/agents/code-flow.json`;
  docs.serve('/agents/code-flow.json', {
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
});

describe('the authorization code flow, headless', () => {
  it('takes an agent from its request to a delegated token for the customer the storefront named', async () => {
    const started = await start();
    expect(started.response.status, await started.response.clone().text()).toBe(302);
    expect(started.location).toMatch(/^https:\/\/shop\.example\/consent\?authorization_request=/);
    expect(started.cookie).toMatch(/^ta_authz_/);
    const shop = await storefront();
    const read = await shop.read(started.requestId);
    expect(await read.json()).toMatchObject({
      status: 'pending',
      client: { client_id: agent, client_name: 'Shopping agent' },
      redirect_uri: CALLBACK,
      scopes: SCOPES,
      resource: AUDIENCE,
    });
    const { code, verifier } = await codeFor();
    const response = await redeem(code, verifier);
    const body = (await response.json()) as { access_token: string; token_type: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(decodeJwt(body.access_token)).toMatchObject({
      sub: 'c-7',
      customer_id: 'c-7',
      segment_id: 'vip',
      aud: AUDIENCE,
      act: { sub: agent },
      space_id: SPACE,
    });
    expect(await introspect(body.access_token)).toMatchObject({ active: true });
  });

  it('a replayed code is refused and revokes the token it bought', async () => {
    const { code, verifier } = await codeFor();
    const first = await parties.accessToken(await redeem(code, verifier));
    const again = await parties.refusal(await redeem(code, verifier));
    expect(again).toMatchObject({ error: 'invalid_grant' });
    expect(again.error_description).toMatch(/used before/);
    expect(await introspect(first)).toMatchObject({ active: false });
  });

  it('a wrong verifier, another redirect_uri or another client gets nothing', async () => {
    const { code, verifier } = await codeFor();
    const wrong = oauth.generateRandomCodeVerifier();
    expect(await parties.refusal(await redeem(code, wrong))).toMatchObject({
      error: 'invalid_grant',
    });
    const elsewhere = await redeem(code, verifier, { redirect_uri: 'http://127.0.0.1:1/other' });
    expect(await parties.refusal(elsewhere)).toMatchObject({ error: 'invalid_grant' });
    const stranger = await redeem(code, verifier, { client_id: `${agent}x` });
    expect(await parties.refusal(stranger)).toMatchObject({ error: 'invalid_grant' });
    // None of those spent it: the right client, verifier and redirect URI still get the token.
    await parties.accessToken(await redeem(code, verifier));
  });

  it('an unregistered redirect_uri is shown, never followed', async () => {
    for (const uri of ['https://evil.example/callback', 'http://127.0.0.1:51234/other']) {
      const { response } = await start({ redirect_uri: uri });
      expect(response.status, uri).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('no PKCE, or plain, goes back to the client as invalid_request with its state and iss', async () => {
    for (const overrides of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge_method: 'plain' },
      { code_challenge_method: undefined },
    ]) {
      const { response, state } = await start(overrides);
      expect(response.status).toBe(302);
      const back = new URL(response.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(CALLBACK);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({
        error: 'invalid_request',
        state,
        iss: iss(),
      });
    }
  });

  it('the code reaches only the browser that started the request', async () => {
    const started = await start();
    const accepted = await (await storefront()).accept(started.requestId);
    const { redirect_to: resume } = (await accepted.json()) as { redirect_to: string };
    const other = await start();
    for (const cookie of [undefined, other.cookie.replace(other.requestId, started.requestId)]) {
      const back = await browse(resume, cookie);
      expect(back.status).toBe(400);
      expect(back.headers.get('location')).toBeNull();
    }
    expect((await browse(resume, started.cookie)).status).toBe(302);
  });

  it("another space's storefront cannot read or accept the request", async () => {
    const started = await start();
    const foreign = await storefront(OTHER_SPACE);
    expect((await foreign.read(started.requestId)).status).toBe(404);
    expect((await foreign.accept(started.requestId)).status).toBe(404);
    expect((await foreign.reject(started.requestId)).status).toBe(404);
    // Still pending for its own space.
    expect(await (await (await storefront()).read(started.requestId)).json()).toMatchObject({
      status: 'pending',
    });
  });

  it('a grant wider than asked is refused; a narrower one gives the narrower token', async () => {
    const started = await start({ scope: 'products:read' });
    const shop = await storefront();
    const wider = await shop.accept(started.requestId, { scope: ['products:read', 'cart:write'] });
    expect(wider.status).toBe(400);
    const problem = await wider.json();
    expect(problem, JSON.stringify(problem)).toMatchObject({ code: 'invalid_scope' });
    const { code, verifier } = await codeFor({ scope: ['products:read'] });
    const token = await parties.accessToken(await redeem(code, verifier));
    expect(decodeJwt(token).scope).toBe('products:read');
  });

  it('a rejected request sends the client access_denied, and no code is given', async () => {
    const started = await start();
    const shop = await storefront();
    const rejected = await shop.reject(started.requestId);
    const { redirect_to: to } = (await rejected.json()) as { redirect_to: string };
    expect(Object.fromEntries(new URL(to).searchParams)).toMatchObject({
      error: 'access_denied',
      state: started.state,
      iss: iss(),
    });
    expect((await shop.accept(started.requestId)).status).toBe(409);
  });

  it('a refresh token is rotated: each gives a token for the same customer and the next refresh token', async () => {
    const first = await tokensFor();
    expect(first.refresh_token).toMatch(new RegExp(`^${first.requestId}\\.`));
    const once = await refresh(first.refresh_token);
    const body = (await once.json()) as { access_token: string; refresh_token: string };
    expect(once.status, JSON.stringify(body)).toBe(200);
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'c-7', act: { sub: agent } });
    // Fewer scopes may be asked (RFC 6749 §6), never more.
    const narrower = await refresh(body.refresh_token, { scope: 'products:read' });
    const narrow = (await narrower.json()) as { access_token: string; refresh_token: string };
    expect(narrower.status, JSON.stringify(narrow)).toBe(200);
    expect(decodeJwt(narrow.access_token).scope).toBe('products:read');
    const wider = await refresh(narrow.refresh_token, { scope: 'orders:read' });
    expect(await parties.refusal(wider)).toMatchObject({ error: 'invalid_scope' });
    // Another client with the refresh token that stands: nothing, and nothing revoked.
    const stranger = await refresh(narrow.refresh_token, { client_id: `${agent}x` });
    expect(await parties.refusal(stranger)).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(narrow.refresh_token)).status).toBe(200);
  });

  it('a reused refresh token revokes the consent: its tokens inactive, its newest refresh token refused', async () => {
    const first = await tokensFor();
    const rotated = (await (await refresh(first.refresh_token)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const reused = await parties.refusal(await refresh(first.refresh_token));
    expect(reused).toMatchObject({ error: 'invalid_grant' });
    expect(reused.error_description).toMatch(/replaced before/);
    expect(await introspect(first.access_token)).toMatchObject({ active: false });
    expect(await introspect(rotated.access_token)).toMatchObject({ active: false });
    expect(await parties.refusal(await refresh(rotated.refresh_token))).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it("the storefront lists a customer's consents and withdraws one: its tokens stop everywhere", async () => {
    const customer = `c-list-${Date.now()}`;
    const kept = await tokensFor({ customer_id: customer, expires_in: 3600 });
    const withdrawn = await tokensFor({ customer_id: customer });
    const shop = await storefront();
    const listed = (await (await shop.consents(customer)).json()) as {
      consents: Array<{ consent_id: string; client_id: string; expires_at: number }>;
    };
    expect(listed.consents.map((c) => c.consent_id).sort()).toEqual(
      [kept.requestId, withdrawn.requestId].sort(),
    );
    const mine = listed.consents.find((c) => c.consent_id === kept.requestId)!;
    expect(mine.client_id).toBe(agent);
    expect(mine.expires_at - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3600);
    // Another space's storefront sees none of them and withdraws nothing.
    const other = await storefront(OTHER_SPACE);
    expect(await (await other.consents(customer)).json()).toEqual({ consents: [] });
    expect((await other.revoke(withdrawn.requestId)).status).toBe(404);
    expect(await introspect(withdrawn.access_token)).toMatchObject({ active: true });

    const revoked = await shop.revoke(withdrawn.requestId);
    expect(revoked.status, await revoked.clone().text()).toBe(200);
    expect(await introspect(withdrawn.access_token)).toMatchObject({ active: false });
    // Every verifier hears it (issue 65): the token's status-list entry is INVALID, the kept one's not.
    await projectStatusEntries(service);
    expect(await listedStatus(service, withdrawn.access_token)).toBe(1);
    expect(await listedStatus(service, kept.access_token)).toBe(0);
    expect(await parties.refusal(await refresh(withdrawn.refresh_token))).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await shop.revoke(withdrawn.requestId)).status).toBe(200);
    const after = (await (await shop.consents(customer)).json()) as {
      consents: Array<{ consent_id: string }>;
    };
    expect(after.consents.map((c) => c.consent_id)).toEqual([kept.requestId]);
    expect(await introspect(kept.access_token)).toMatchObject({ active: true });
    expect((await refresh(kept.refresh_token)).status).toBe(200);
  });
});
