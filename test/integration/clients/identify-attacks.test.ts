import { createHash } from 'node:crypto';
import {
  SignJWT,
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type CryptoKey,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Stop 73's hostile review of identifyClient and the one issuance handler, kept as regression tests: hostile tenant,
 * hostile agent, network peer. Each `it` states what an attacker tries; the expectations state
 * what a secure service must answer.
 */
const A = 'space-attack-a';
const B = 'space-attack-b';
const ISSUER = 'http://token-authority.test';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
const partiesA = delegationParties(() => service, A);

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
    DELEGATION_BUDGET: '3',
  });
});

const admin = async (space: string) => ({
  authorization: `Bearer ${await service.loginToken([space])}`,
  'x-service-space-id': space,
});

async function keyedClient(space: string, extra: Record<string, unknown> = {}) {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const response = await service.post(
    '/v1/credential',
    { name: 'agent', description: 'keyed', scopes: SCOPES, jwks: { keys: [jwk] }, ...extra },
    await admin(space),
  );
  expect(response.status, await response.clone().text()).toBe(201);
  return { clientId: ((await response.json()) as { client_id: string }).client_id, privateKey };
}

const ownAssertion = (clientId: string, key: CryptoKey, claims: Record<string, unknown> = {}) =>
  new SignJWT({ jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(ISSUER)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);

async function auditOf(space: string, query: string) {
  const response = await fetch(`${service.baseUrl}/v1/audit/events?${query}`, {
    headers: await admin(space),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: Array<Record<string, unknown>> }).items;
}

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

async function dpopKey() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = (await exportJWK(publicKey)) as JWK;
  const jkt = await calculateJwkThumbprint(jwk);
  const proof = (htu: string, token?: string) =>
    new SignJWT({
      jti: crypto.randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      htm: 'POST',
      htu: `${ISSUER}${htu}`,
      ...(token ? { ath: ath(token) } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);
  return { jkt, proof };
}

describe('a captured DPoP request replayed (network peer)', () => {
  it('a replayed /v1/issue proof is refused without spending the storefront’s budget', async () => {
    // The storefront: 4 requests a minute.
    const created = await service.post(
      '/v1/credential',
      { name: 'shop', description: 'budget', scopes: SCOPES, rate_limit_per_minute: 4 },
      await admin(A),
    );
    expect(created.status).toBe(201);
    const shop = (await created.json()) as { client_id: string; client_secret: string };
    const key = await dpopKey();
    const granted = await fetch(`${service.baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        dpop: await key.proof('/v1/credential/token'),
      },
      body: JSON.stringify({ ...shop, grant_type: 'client_credentials', audience: AUDIENCE }),
    });
    expect(granted.status).toBe(200);
    const token = ((await granted.json()) as { access_token: string }).access_token; // budget: 1
    const captured = {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-space-id': A,
        authorization: `DPoP ${token}`,
        dpop: await key.proof('/v1/issue', token),
      },
      body: JSON.stringify({ customer_id: 'c-1', segment_id: 's-1' }),
    };
    expect((await fetch(`${service.baseUrl}/v1/issue`, captured)).status).toBe(200); // budget: 2
    // The peer replays the captured request: each is refused as a replayed proof…
    for (let i = 0; i < 2; i += 1) {
      const replay = await fetch(`${service.baseUrl}/v1/issue`, captured);
      const text = await replay.text();
      expect(replay.status, text).toBe(401);
      expect(text).toMatch(/already used/);
    }
    // …and the storefront's own next request, a fresh proof, should still be served (3 of 4).
    const fresh = await fetch(`${service.baseUrl}/v1/issue`, {
      ...captured,
      headers: { ...captured.headers, dpop: await key.proof('/v1/issue', token) },
    });
    expect(fresh.status, await fresh.clone().text()).toBe(200);
  });

  it('a replayed delegated exchange proof is refused without spending the agent’s delegation budget', async () => {
    const { credential, privateToken, issue, accessToken } = partiesA;
    const agent = await credential(SCOPES);
    const key = await dpopKey();
    const granted = await fetch(`${service.baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        dpop: await key.proof('/v1/credential/token'),
      },
      body: JSON.stringify({
        ...agent,
        grant_type: 'client_credentials',
        audience: AUDIENCE,
        scope: SCOPES.join(' '),
      }),
    });
    expect(granted.status).toBe(200);
    const actorToken = ((await granted.json()) as { access_token: string }).access_token;
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agent.client_id }),
    );
    const body = JSON.stringify({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subject,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: actorToken,
      actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    const headers = {
      'content-type': 'application/json',
      'x-service-space-id': A,
      dpop: await key.proof('/v1/credential/token', actorToken),
    };
    const captured = { method: 'POST', headers, body };
    const first = await fetch(`${service.baseUrl}/v1/credential/token`, captured);
    expect(first.status, await first.clone().text()).toBe(200); // slot 1 of 3
    for (let i = 0; i < 2; i += 1) {
      const replay = await fetch(`${service.baseUrl}/v1/credential/token`, captured);
      const text = await replay.text();
      expect(replay.status, text).toBe(400); // invalid_dpop_proof, replayed
      expect(text).toMatch(/already used/);
    }
    // The agent's own second exchange for this customer, with a fresh proof (slot 2 of 3).
    const fresh = await fetch(`${service.baseUrl}/v1/credential/token`, {
      ...captured,
      headers: { ...headers, dpop: await key.proof('/v1/credential/token', actorToken) },
    });
    expect(fresh.status, await fresh.clone().text()).toBe(200);
  });
});

describe('actor_token confusion (hostile tenant / agent)', () => {
  it('space B’s keyed client, by a good assertion of its own, does not act in space A', async () => {
    const { credential, privateToken, issue, accessToken, delegate, refusal } = partiesA;
    const agentA = await keyedClient(A);
    const agentB = await keyedClient(B);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agentA.clientId }),
    );
    const problem = await refusal(
      await delegate(subject, await ownAssertion(agentB.clientId, agentB.privateKey), {
        actor_token_type: JWT_TYPE,
      }),
    );
    expect(problem.error).toBe('invalid_grant');
    // B's own assertion under the subject naming B: may_act can only name a client of A.
    const named = await issue(await privateToken(storefront, SCOPES), {
      may_act: agentB.clientId,
    });
    expect(named.status).toBe(400);
  });

  it('an actor JWT naming another tenant’s client as iss tells apart a client that exists', async () => {
    const { credential, privateToken, issue, accessToken, delegate, refusal } = partiesA;
    const agentA = await keyedClient(A);
    const victimB = await keyedClient(B);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agentA.clientId }),
    );
    const attacker = (await generateKeyPair('ES256')).privateKey;
    const asJwt = { actor_token_type: JWT_TYPE };
    const existing = await refusal(
      await delegate(subject, await ownAssertion(victimB.clientId, attacker), asJwt),
    );
    const absent = await refusal(
      await delegate(subject, await ownAssertion('ci_AAAAAAAAAAAAAAAAAAAAAA', attacker), asJwt),
    );
    // What a secure service answers: the same for a client of another space and for none.
    expect(existing.error_description).toBe(absent.error_description);
  });

  it('a request to space A plants no failure in space B’s audit trail', async () => {
    const { credential, privateToken, issue, accessToken, delegate } = partiesA;
    const agentA = await keyedClient(A);
    const victimB = await keyedClient(B);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agentA.clientId }),
    );
    const attacker = (await generateKeyPair('ES256')).privateKey;
    await delegate(subject, await ownAssertion(victimB.clientId, attacker), {
      actor_token_type: JWT_TYPE,
    });
    const planted = await auditOf(
      B,
      `event_type=client-authentication-failed&client_id=${victimB.clientId}`,
    );
    expect(planted).toEqual([]);
  });

  it('hostile actor_token JWTs answer 400, never 500', async () => {
    const { credential, privateToken, issue, accessToken, delegate } = partiesA;
    const agentA = await keyedClient(A);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agentA.clientId }),
    );
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const k = agentA.privateKey;
    const hostile = [
      'a.b.c',
      `${b64({ alg: 'none' })}.${b64({ iss: agentA.clientId, sub: agentA.clientId })}.`,
      `${b64({ alg: 'ES256', kid: 'k1' })}.${b64({ iss: agentA.clientId })}.${'A'.repeat(7000)}`,
      `${b64({ alg: 'ES256', crit: ['b64'], b64: false })}.${b64({ iss: agentA.clientId })}.AA`,
      `${b64({ alg: 'HS256', kid: 'k1' })}.${b64({ iss: agentA.clientId, sub: agentA.clientId })}.AA`,
      `${b64({ alg: 'ES256' })}.${b64({ iss: ['x'] })}.AA`,
      `${b64({ alg: 'ES256' })}.${b64({ iss: '__proto__' })}.AA`,
      `${b64({ alg: 'ES256' })}.${b64({ iss: 'http://127.0.0.1:1/' })}.AA`,
      `${b64({ alg: 'ES256' })}.${Buffer.from('not json').toString('base64url')}.AA`,
      // A number where RFC 7519 wants a string.
      await new SignJWT({ jti: 1 as unknown as string })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(agentA.clientId)
        .setSubject(agentA.clientId)
        .setAudience(ISSUER)
        .setExpirationTime('60s')
        .sign(k),
      // (A 5000-character jti the agent signed itself is accepted: its own good assertion.)
      await new SignJWT({ jti: crypto.randomUUID(), exp: 1e20 })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(agentA.clientId)
        .setSubject(agentA.clientId)
        .setAudience(ISSUER)
        .sign(k),
    ];
    const statuses = [];
    for (const [i, token] of hostile.entries()) {
      const response = await delegate(subject, token, { actor_token_type: JWT_TYPE });
      statuses.push([response.status, i, (await response.text()).slice(0, 200)]);
    }
    expect(statuses.filter(([status]) => status !== 400)).toEqual([]);
  });
});

describe('client authentication by a trusted issuer’s assertion, another tenant’s client named', () => {
  it('answers alike for a client of another space and for no client', async () => {
    const victimB = await keyedClient(B);
    const forged = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('https://issuer.example')
      .setSubject('workload')
      .setAudience(ISSUER)
      .setExpirationTime('60s')
      .sign((await generateKeyPair('ES256')).privateKey);
    const ask = (clientId: string) =>
      service.post('/v1/credential/token', {
        grant_type: 'client_credentials',
        audience: AUDIENCE,
        client_id: clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: forged,
      });
    const existing = (await (await ask(victimB.clientId)).json()) as Record<string, unknown>;
    const absent = (await (await ask('ci_BBBBBBBBBBBBBBBBBBBBBB')).json()) as Record<
      string,
      unknown
    >;
    expect(existing.error).toBe('invalid_client');
    expect(existing.error_description).toBe(absent.error_description);
  });
});

describe('claims the token carries are those recorded', () => {
  it('a private token’s claims equal its private-token-issued event', async () => {
    const agent = await keyedClient(A);
    const response = await service.post('/v1/credential/token', {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await ownAssertion(agent.clientId, agent.privateKey),
    });
    expect(response.status).toBe(200);
    const claims = decodeJwt(((await response.json()) as { access_token: string }).access_token);
    const events = await auditOf(A, `event_type=private-token-issued&client_id=${agent.clientId}`);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0])).toContain(String(claims.jti));
  });
});

describe('a delegated token bought by a trusted issuer’s actor assertion', () => {
  it('stops standing, as a jwt-bearer private token does, once the issuer is removed', async () => {
    const { startLocalIssuer } = await import('../../support/local-issuer.js');
    const { credential, privateToken, issue, accessToken, delegate } = partiesA;
    const agent = await credential(SCOPES);
    const storefront = await credential(SCOPES);
    const spiffe = await startLocalIssuer({ alg: 'ES256' });
    const trusted = await service.post(
      '/v1/trusted-issuers',
      {
        iss: spiffe.iss,
        jwks_uri: spiffe.jwksUri,
        audience: ISSUER,
        rules: [
          {
            id: 'agent',
            claims: { sub: 'spiffe://shop.example/agent' },
            client_id: agent.client_id,
          },
        ],
      },
      await admin(A),
    );
    expect(trusted.status).toBe(201);
    const issuerId = ((await trusted.json()) as { issuer_id: string }).issuer_id;
    const svid = () => spiffe.mint({ aud: ISSUER, sub: 'spiffe://shop.example/agent' });
    // The same workload buys a private token (jwt-bearer) and a delegated token (actor_token).
    const bearer = await service.post(
      '/v1/credential/token',
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: await svid(),
        audience: AUDIENCE,
      },
      { 'x-service-space-id': A },
    );
    const viaRule = await accessToken(bearer);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agent.client_id }),
    );
    const delegated = await accessToken(
      await delegate(subject, await svid(), { actor_token_type: JWT_TYPE }),
    );
    const introspect = async (token: string) => {
      const response = await service.post('/v1/introspect', { ...storefront, token });
      expect(response.status).toBe(200);
      return ((await response.json()) as { active: boolean }).active;
    };
    expect([await introspect(viaRule), await introspect(delegated)]).toEqual([true, true]);
    // Its event records no trace of the assertion that proved the agent.
    const [issued] = await auditOf(
      A,
      `event_type=public-token-issued&client_id=${agent.client_id}`,
    );
    const removed = await fetch(`${service.baseUrl}/v1/trusted-issuers/${issuerId}`, {
      method: 'DELETE',
      headers: await admin(A),
    });
    expect(removed.status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past CREDENTIAL_CACHE_TTL_MS
    expect(await introspect(viaRule)).toBe(false); // holds
    // What a secure service answers: the delegated token stood on the same rule.
    expect(await introspect(delegated)).toBe(false);
    expect(JSON.stringify(issued)).toContain(issuerId);
  });
});

describe('a revoked credential behind a trusted issuer’s rule (held)', () => {
  it('authenticates on no path: client_assertion, jwt-bearer, actor_token', async () => {
    const { startLocalIssuer } = await import('../../support/local-issuer.js');
    const { credential, privateToken, issue, accessToken, delegate } = partiesA;
    const agent = await credential(SCOPES);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agent.client_id }),
    );
    const spiffe = await startLocalIssuer({ alg: 'ES256' });
    const trusted = await service.post(
      '/v1/trusted-issuers',
      {
        iss: spiffe.iss,
        jwks_uri: spiffe.jwksUri,
        audience: ISSUER,
        rules: [{ id: 'r', claims: { sub: 'spiffe://x/r' }, client_id: agent.client_id }],
      },
      await admin(A),
    );
    expect(trusted.status).toBe(201);
    const svid = () => spiffe.mint({ aud: ISSUER, sub: 'spiffe://x/r' });
    const revoked = await fetch(`${service.baseUrl}/v1/credential/${agent.client_id}`, {
      method: 'DELETE',
      headers: await admin(A),
    });
    expect(revoked.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const clientAuth = await service.post('/v1/credential/token', {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_id: agent.client_id,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await svid(),
    });
    const bearer = await service.post(
      '/v1/credential/token',
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: await svid(),
        audience: AUDIENCE,
      },
      { 'x-service-space-id': A },
    );
    const actor = await delegate(subject, await svid(), { actor_token_type: JWT_TYPE });
    expect([clientAuth.status, bearer.status, actor.status]).toEqual([401, 400, 400]);
  });
});
