import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../../src/verify/index.js';
import { delegationParties } from '../../support/delegation.js';
import {
  agentKey,
  serveAgent,
  startLocalDocuments,
  type LocalDocuments,
} from '../../support/local-documents.js';
import { startLocalIssuer } from '../../support/local-issuer.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { waitUntil } from '../../support/wait.js';
import {
  adminCall,
  AUDIENCE,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * A hostile review of issue 64 item 3 (an agent known by its metadata document named in may_act
 * and acting by its document's keys): what a tenant, an agent or a peer could try, and what holds.
 */
const SPACE = 'space-cimd-attacks';
const OTHER_SPACE = 'space-cimd-attacks-other';
const ISSUER = 'http://token-authority.test';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
let docs: LocalDocuments;
let key: Awaited<ReturnType<typeof agentKey>>;
const parties = delegationParties(() => service, SPACE);
const other = delegationParties(() => service, OTHER_SPACE);
const { credential, issue, delegate, accessToken, refusal } = parties;
const asJwt = { actor_token_type: JWT_TYPE };
const NOT_ACTIVE = { code: 'invalid_request', invalid_fields: [{ field: 'may_act' }] };

const admin = (method: string, path: string, body?: unknown, space = SPACE) =>
  adminCall(service, space, method, path, body);

const agentAt = (path: string, host = 'localhost') => serveAgent(docs, key.jwks, path, host);

const storefrontToken = async (space = SPACE) => {
  const parts = space === SPACE ? parties : other;
  return parts.privateToken(await parts.credential(SCOPES), SCOPES);
};

const introspect = async (token: string, space = SPACE) => {
  const parts = space === SPACE ? parties : other;
  const response = await service.post('/v1/introspect', {
    ...(await parts.credential(SCOPES)),
    token,
  });
  return (await response.json()) as { active: boolean };
};

const kit = createVerifier({
  issuer: ISSUER,
  audience: AUDIENCE,
  revocationRefreshSeconds: 0.1,
  fetch: (input, init) => fetch(String(input).replace(ISSUER, service.baseUrl), init),
});

async function kitStatus(token: string): Promise<number> {
  const headers = new Map([['authorization', `Bearer ${token}`]]);
  return kit
    .verify({ method: 'GET', url: 'https://shop.example/cart', header: (n) => headers.get(n) })
    .then(
      () => 200,
      (error: { status: number }) => error.status,
    );
}

/** The doc client at the token endpoint (client_credentials) with `assertion`. */
const atTokenEndpoint = (clientId: string, assertion: string, space = SPACE) =>
  service.post(
    '/v1/credential/token',
    {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
      audience: AUDIENCE,
      scope: 'products:read',
    },
    { 'x-service-space-id': space },
  );

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
  docs = await startLocalDocuments();
  key = await agentKey();
  for (const [domain, space] of [
    ['localhost', SPACE],
    ['127.0.0.1', SPACE],
    ['localhost', OTHER_SPACE],
  ] as const) {
    const allowed = await admin(
      'POST',
      '/v1/metadata-client-domains',
      { domain, scopes: SCOPES },
      space,
    );
    expect(allowed.status).toBe(201);
  }
});

describe('findings', () => {
  // FINDING (low): the actor path sends every JWT with iss = sub and any `scheme:` iss to the
  // metadata document path, so a trusted issuer whose workload tokens carry sub = iss can no
  // longer act as its rule's agent (refused "actor_token: client_id: ...").
  for (const [label, iss] of [
    ['an http iss', undefined],
    ['an https iss with a path', 'https://issuer.example/tenants/shop'],
  ] as const) {
    it(`a trusted issuer's token with sub = iss (${label}) still acts as its rule's agent`, async () => {
      const agent = await credential(SCOPES);
      const idp = await startLocalIssuer({ alg: 'ES256', ...(iss ? { iss } : {}) });
      const trusted = await admin('POST', '/v1/trusted-issuers', {
        iss: idp.iss,
        jwks_uri: idp.jwksUri,
        audience: ISSUER,
        rules: [{ id: 'self', claims: { sub: idp.iss }, client_id: agent.client_id }],
      });
      expect(trusted.status, await trusted.clone().text()).toBe(201);
      const subject = await accessToken(
        await issue(await storefrontToken(), { may_act: agent.client_id }),
      );
      const workload = await idp.mint({ aud: ISSUER, sub: idp.iss });
      const delegated = await accessToken(await delegate(subject, workload, asJwt));
      expect(decodeJwt(delegated)).toMatchObject({ act: { sub: agent.client_id } });
    });
  }

  // Review finding (mended; as for any metadata document client): narrowing a domain's scopes
  // reached introspection but not the revocation list, so the kit served the withdrawn scopes.
  it('a domain narrowed below a delegated token: the kit refuses it too', async () => {
    const agent = agentAt('/agents/narrowed.json', '127.0.0.1');
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    const delegated = await accessToken(
      await delegate(subject, await key.assert(agent, ISSUER), asJwt),
    );
    expect(await kitStatus(delegated)).toBe(200);
    const narrowed = { domain: '127.0.0.1', scopes: ['products:read'] };
    expect((await admin('POST', '/v1/metadata-client-domains', narrowed)).status).toBeLessThan(300);
    expect((await introspect(delegated)).active).toBe(false);
    const status = await waitUntil(
      () => kitStatus(delegated),
      (answer) => answer !== 200,
      { timeoutMs: 2000, intervalMs: 200 },
    );
    expect(status).toBe(401);
  });
});

describe('what held', () => {
  it('naming URLs in may_act fetches nothing, allowed or not', async () => {
    const token = await storefrontToken();
    for (let n = 0; n < 5; n++) {
      const named = `https://localhost:${docs.port}/agents/never-${n}.json`;
      expect((await issue(token, { may_act: named })).status).toBe(200);
    }
    const refused = await issue(token, { may_act: `https://127.0.0.2:${docs.port}/agents/x.json` });
    expect(refused.status).toBe(400);
    expect([...docs.hits.keys()].filter((path) => path.includes('never-'))).toEqual([]);
  });

  it('may_act written otherwise than its URL is refused; an iss written otherwise does not match', async () => {
    const agent = agentAt('/agents/canonical.json');
    const token = await storefrontToken();
    const port = docs.port;
    for (const variant of [
      `https://LOCALHOST:${port}/agents/canonical.json`,
      `HTTPS://localhost:${port}/agents/canonical.json`,
      `https://user@localhost:${port}/agents/canonical.json`,
      `https://localhost:${port}/agents/x/%2e%2e/canonical.json`,
      `https://localhost:${port}/agents/./canonical.json`,
      `https://localhost:0${port}/agents/canonical.json`,
      `https://localhost:443/agents/canonical.json`,
      `https://lôcalhost:${port}/agents/canonical.json`,
      `https://localhost:${port}`,
      `https://localhost:${port}/`,
    ]) {
      const response = await issue(token, { may_act: variant });
      expect(response.status, variant).toBe(400);
      expect(await response.json()).toMatchObject(NOT_ACTIVE);
    }
    const subject = await accessToken(await issue(token, { may_act: agent }));
    // The same document under another spelling of its URL: another client, not the one named.
    const spelled = `https://localhost:${port}/agents/%63anonical.json`;
    docs.serve('/agents/%63anonical.json', { body: { client_id: spelled, jwks: key.jwks } });
    const problem = await refusal(
      await delegate(subject, await key.assert(spelled, ISSUER), asJwt),
    );
    expect(problem.error_description).toMatch(/may_act does not name/);
    const upper = await refusal(
      await delegate(subject, await key.assert(agent.toUpperCase(), ISSUER), asJwt),
    );
    expect(upper.error).toBe('invalid_grant');
  });

  it('an assertion is spent once across the token endpoint, the actor path and spaces', async () => {
    const agent = agentAt('/agents/once.json');
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    const spentAtEndpoint = await key.assert(agent, ISSUER);
    expect((await atTokenEndpoint(agent, spentAtEndpoint)).status).toBe(200);
    expect((await refusal(await delegate(subject, spentAtEndpoint, asJwt))).error).toBe(
      'invalid_grant',
    );
    const spentAsActor = await key.assert(agent, ISSUER);
    await accessToken(await delegate(subject, spentAsActor, asJwt));
    expect((await atTokenEndpoint(agent, spentAsActor)).status).toBe(401);
    expect((await atTokenEndpoint(agent, spentAsActor, OTHER_SPACE)).status).toBe(401);
    // The subject token of one space is not exchanged under another's header.
    const elsewhere = await other.delegate(subject, await key.assert(agent, ISSUER), asJwt);
    expect(elsewhere.status).toBe(400);
    // Nor does an assertion for another audience pass.
    const foreign = await key.assert(agent, 'https://elsewhere.example');
    expect((await refusal(await delegate(subject, foreign, asJwt))).error).toBe('invalid_grant');
  });

  it('an agent allowed in one space only cannot act on a token of the other, named or not', async () => {
    // 127.0.0.1 is allowed in SPACE, not in OTHER_SPACE.
    const agent = agentAt('/agents/one-space.json', '127.0.0.1');
    const named = await other.issue(await storefrontToken(OTHER_SPACE), { may_act: agent });
    expect(named.status).toBe(400);
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    const problem = await other.refusal(
      await other.delegate(subject, await key.assert(agent, ISSUER), asJwt),
    );
    expect(problem.error).toBe('invalid_grant');
  });

  it('a document agent re-delegates to another; the domain removed, the chain dies everywhere', async () => {
    const first = agentAt('/agents/chain-first.json');
    const second = agentAt('/agents/chain-second.json');
    const spaceParties = delegationParties(() => service, OTHER_SPACE);
    const subject = await accessToken(
      await spaceParties.issue(await storefrontToken(OTHER_SPACE), { may_act: first }),
    );
    const hop = await accessToken(
      await spaceParties.delegate(subject, await key.assert(first, ISSUER), {
        ...asJwt,
        may_act: second,
      }),
    );
    expect(decodeJwt(hop)).toMatchObject({ act: { sub: first }, may_act: { sub: second } });
    // Naming a URL the space does not allow is refused.
    const refusedNext = await spaceParties.delegate(subject, await key.assert(first, ISSUER), {
      ...asJwt,
      may_act: `https://127.0.0.1:${docs.port}/agents/chain-second.json`,
    });
    expect(refusedNext.status).toBe(400);
    const last = await accessToken(
      await spaceParties.delegate(hop, await key.assert(second, ISSUER), asJwt),
    );
    expect(decodeJwt(last)).toMatchObject({ act: { sub: second, act: { sub: first } } });
    expect((await introspect(last, OTHER_SPACE)).active).toBe(true);
    expect(await kitStatus(last)).toBe(200);
    // A second hop token, kept for after the removal.
    const spare = await accessToken(
      await spaceParties.delegate(subject, await key.assert(first, ISSUER), {
        ...asJwt,
        may_act: second,
      }),
    );
    const removed = await admin(
      'DELETE',
      '/v1/metadata-client-domains/localhost',
      undefined,
      OTHER_SPACE,
    );
    expect(removed.status).toBe(204);
    expect((await introspect(last, OTHER_SPACE)).active).toBe(false);
    expect((await introspect(hop, OTHER_SPACE)).active).toBe(false);
    const status = await waitUntil(
      () => kitStatus(last),
      (answer) => answer !== 200,
      { timeoutMs: 5000, intervalMs: 200 },
    );
    expect(status).toBe(401);
    const again = await spaceParties.refusal(
      await spaceParties.delegate(spare, await key.assert(second, ISSUER), asJwt),
    );
    expect(again.error).toBe('invalid_grant');
    // The same domain in SPACE is unaffected.
    const agent = agentAt('/agents/still-here.json');
    const here = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    await accessToken(await delegate(here, await key.assert(agent, ISSUER), asJwt));
  });

  it('odd actor assertions are refused as invalid_grant, never a 500, naming no other tenant', async () => {
    const agent = agentAt('/agents/odd.json');
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    for (const iss of [
      'a:b',
      'https://[::1',
      `https://localhost:${docs.port}/agents/missing.json`,
      `https://localhost:${docs.port}/agents/odd.json#frag`,
      `http://localhost:${docs.port}/agents/odd.json`,
      `https://127.0.0.2:${docs.port}/agents/odd.json`,
      `https://localhost:${docs.port}/${'x'.repeat(2000)}`,
    ]) {
      const response = await delegate(subject, await key.assert(iss, ISSUER), asJwt);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(response.status, iss.slice(0, 80)).toBe(400);
      expect(body.error, `${iss.slice(0, 80)}: ${JSON.stringify(body).slice(0, 300)}`).toBe(
        'invalid_grant',
      );
      expect(body.error_description).not.toContain(OTHER_SPACE);
    }
  });

  it('a huge document is refused, not held', async () => {
    const clientId = `https://localhost:${docs.port}/agents/huge.json`;
    docs.serve('/agents/huge.json', {
      body: { client_id: clientId, jwks: key.jwks, padding: 'x'.repeat(64 * 1024) },
    });
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: clientId }));
    const problem = await refusal(
      await delegate(subject, await key.assert(clientId, ISSUER), asJwt),
    );
    expect(problem.error).toBe('invalid_grant');
  });
});

describe('lockout', () => {
  it('bad assertions naming a legitimate agent lock out the guesser, never the agent’s good proof', async () => {
    const strict = await startTestService({
      SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
      FAILED_AUTH_LIMIT_PER_MINUTE: '3',
    });
    const space = 'space-cimd-lockout';
    const there = delegationParties(() => strict, space);
    const allowed = await strict.post(
      '/v1/metadata-client-domains',
      { domain: 'localhost', scopes: SCOPES },
      { authorization: `Bearer ${await strict.loginToken([space])}`, 'x-service-space-id': space },
    );
    expect(allowed.status).toBe(201);
    const agent = agentAt('/agents/locked.json');
    const storefront = await there.credential(SCOPES);
    const subject = await there.accessToken(
      await there.issue(await there.privateToken(storefront, SCOPES), { may_act: agent }),
    );
    const stranger = await agentKey();
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) {
      const forged = await stranger.assert(agent, ISSUER);
      statuses.push((await there.delegate(subject, forged, asJwt)).status);
    }
    expect(statuses).toContain(429);
    // Same IP (loopback), the good proof is served all the same.
    await there.accessToken(await there.delegate(subject, await key.assert(agent, ISSUER), asJwt));
  });

  // Review finding (mended; shared with the token endpoint): the lockout was judged only after the
  // document was fetched, so a locked-out IP made one outbound GET per fresh URL per request.
  it('a locked-out guesser makes no more outbound fetches', async () => {
    const strict = await startTestService({
      SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
      FAILED_AUTH_LIMIT_PER_MINUTE: '3',
    });
    const space = 'space-cimd-lockout-fetch';
    const there = delegationParties(() => strict, space);
    await strict.post(
      '/v1/metadata-client-domains',
      { domain: 'localhost', scopes: SCOPES },
      { authorization: `Bearer ${await strict.loginToken([space])}`, 'x-service-space-id': space },
    );
    const agent = agentAt('/agents/locked-fetch.json');
    const storefront = await there.credential(SCOPES);
    const subject = await there.accessToken(
      await there.issue(await there.privateToken(storefront, SCOPES), { may_act: agent }),
    );
    const stranger = await agentKey();
    const fresh = () => `https://localhost:${docs.port}/agents/probe-${crypto.randomUUID()}.json`;
    for (let n = 0; n < 4; n++)
      await there.delegate(subject, await stranger.assert(fresh(), ISSUER), asJwt);
    const urls = Array.from({ length: 5 }, fresh);
    for (const url of urls) {
      expect(
        (await there.delegate(subject, await stranger.assert(url, ISSUER), asJwt)).status,
      ).toBe(429);
    }
    expect(urls.filter((url) => docs.hits.has(new URL(url).pathname))).toEqual([]);
  });
});
