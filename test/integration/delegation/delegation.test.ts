import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { delegationParties } from '../../support/delegation.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55, item 1: a storefront's server issues a customer's public token whose `may_act`
 * (RFC 8693 §4.4) names an agent; that agent, and no other, exchanges it with its own private
 * token for a token acting for the customer, never wider nor longer-lived.
 */
const SPACE = 'space-agents';
const ELSEWHERE = 'space-agents-elsewhere';
const ISSUER = 'http://token-authority.test';
const CATALOG = TEST_SCOPE_CATALOG;
const ALL = ['products:read', 'cart:write', 'checkout:write', 'orders:read'];

let service: TestService;
const parties = delegationParties(() => service, SPACE);
const { credential, privateToken, issue, delegate, accessToken, refusal } = parties;
const { TOKEN_EXCHANGE, ACCESS_TOKEN } = parties;
/** The same parties in another space: its clients and tokens are foreign to SPACE. */
const elsewhere = delegationParties(() => service, ELSEWHERE);

beforeAll(async () => {
  // Public tokens would live an hour: one naming an agent lives five minutes at most.
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(CATALOG),
    PUBLIC_TOKEN_TTL_SECONDS: '3600',
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
});

const customerToken = async (token: string, body: Record<string, string>): Promise<string> =>
  accessToken(await issue(token, body));

/** A storefront holding every scope, and an agent allowed two of them. */
async function storefrontAndAgent() {
  const storefront = await credential(ALL);
  const agent = await credential(['products:read', 'cart:write']);
  return {
    storefront,
    agent,
    storefrontToken: await privateToken(storefront, ALL),
    agentToken: await privateToken(agent, ['products:read', 'cart:write']),
  };
}

describe('delegation the customer allowed (RFC 8693 may_act, act)', () => {
  it('the storefront names the agent; the agent exchanges; the token acts for the customer', async () => {
    const { storefront, agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await customerToken(storefrontToken, {
      may_act: agent.client_id,
      scope: 'products:read cart:write checkout:write',
    });
    const subjectClaims = decodeJwt(subject);
    expect(subjectClaims.may_act).toEqual({ sub: agent.client_id });
    expect(subjectClaims.exp! - subjectClaims.iat!).toBeLessThanOrEqual(300);

    const response = await delegate(subject, agentToken);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ issued_token_type: ACCESS_TOKEN, token_type: 'Bearer' });
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(body.access_token as string, jwks, {
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({
      sub: 'c-42',
      customer_id: 'c-42',
      segment_id: 'vip',
      client_id: agent.client_id,
      token_kind: 'public',
      act: { sub: agent.client_id, act: { sub: storefront.client_id } },
      scope: 'cart:write products:read',
    });
    expect(payload.may_act).toBeUndefined();
    expect(payload.exp).toBeLessThanOrEqual(subjectClaims.exp!);

    const { rows } = await service.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE event_type = 'public-token-issued' AND stream_id LIKE $1`,
      [`%${payload.jti}`],
    );
    expect(rows[0]?.data).toMatchObject({
      client_id: agent.client_id,
      subject_jti: subjectClaims.jti,
      actors: [agent.client_id, storefront.client_id],
      narrowed: 'checkout:write',
    });
    const issued = await service.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE event_type = 'public-token-issued' AND stream_id LIKE $1`,
      [`%${subjectClaims.jti}`],
    );
    expect(issued.rows[0]?.data).toMatchObject({ may_act: agent.client_id });

    // Introspection keeps act and may_act (keycloak#53029 dropped act).
    const introspect = (token: string) => service.post('/v1/introspect', { ...agent, token });
    expect(await (await introspect(body.access_token as string)).json()).toMatchObject({
      active: true,
      act: { sub: agent.client_id, act: { sub: storefront.client_id } },
    });
    expect(await (await introspect(subject)).json()).toMatchObject({
      active: true,
      may_act: { sub: agent.client_id },
      act: { sub: storefront.client_id },
    });
  });

  it('a token exchange names the agent too (may_act on the exchange)', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const response = await service.post(
      '/v1/credential/token',
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: storefrontToken,
        subject_token_type: ACCESS_TOKEN,
        customer_id: 'c-7',
        segment_id: 'vip',
        may_act: agent.client_id,
      },
      { 'x-service-space-id': SPACE },
    );
    expect(response.status).toBe(200);
    const subject = ((await response.json()) as { access_token: string }).access_token;
    expect(decodeJwt(subject).may_act).toEqual({ sub: agent.client_id });
    const delegated = await delegate(subject, agentToken);
    expect(delegated.status).toBe(200);
  });

  it('no may_act, no delegation: a plain exchange never reaches it (keycloak#52691)', async () => {
    const { storefrontToken, agentToken } = await storefrontAndAgent();
    const plain = await customerToken(storefrontToken, {});
    expect(decodeJwt(plain).may_act).toBeUndefined();
    const problem = await refusal(await delegate(plain, agentToken));
    expect(problem.error).toBe('invalid_request');
    expect(problem.error_description).toMatch(/may_act/);
    // Nor with the storefront's private token as subject.
    const fromPrivate = await refusal(await delegate(storefrontToken, agentToken));
    expect(fromPrivate.error).toBe('invalid_request');
  });

  it('another agent than the one named is refused', async () => {
    const { agent, storefrontToken } = await storefrontAndAgent();
    const other = await credential(['products:read', 'cart:write']);
    const subject = await customerToken(storefrontToken, { may_act: agent.client_id });
    const problem = await refusal(
      await delegate(subject, await privateToken(other, ['products:read'])),
    );
    expect(problem).toMatchObject({ error: 'invalid_grant' });
    expect(problem.error_description).toMatch(/may_act does not name/);
  });

  it('a scope beyond the subject token, the agent or the catalog is invalid_scope', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await customerToken(storefrontToken, {
      may_act: agent.client_id,
      scope: 'products:read checkout:write',
    });
    // cart:write: the agent may, the subject token does not hold it.
    for (const scope of ['cart:write', 'checkout:write', 'orders:read']) {
      expect((await refusal(await delegate(subject, agentToken, { scope }))).error, scope).toBe(
        'invalid_scope',
      );
    }
    const narrowed = await delegate(subject, agentToken, { scope: 'products:read' });
    expect(narrowed.status).toBe(200);
  });

  it('never outlives the subject token, however late it is exchanged', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await customerToken(storefrontToken, { may_act: agent.client_id });
    // A second later, a fresh five minutes would end after the customer's token does.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const response = await delegate(subject, agentToken);
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    expect(decodeJwt(access_token).exp).toBe(decodeJwt(subject).exp);
  });

  it('may_act names an active client of the same space, or is invalid_request', async () => {
    const { storefrontToken } = await storefrontAndAgent();
    const foreign = await elsewhere.credential(['products:read']);
    for (const mayAct of [foreign.client_id, 'no-such-client']) {
      const response = await issue(storefrontToken, { may_act: mayAct });
      expect(response.status).toBe(400);
      // /v1/issue answers in problem details (RFC 9457), naming the field.
      expect(await response.json()).toMatchObject({
        code: 'invalid_request',
        invalid_fields: [{ field: 'may_act', message: 'is not an active client of this space' }],
      });
    }
  });

  it('client authentication, when sent, must be the agent the actor_token is of', async () => {
    const { storefront, agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await customerToken(storefrontToken, { may_act: agent.client_id });
    const asStorefront = await refusal(await delegate(subject, agentToken, storefront));
    expect(asStorefront).toMatchObject({ error: 'invalid_grant' });
    expect(asStorefront.error_description).toMatch(/actor_token was issued to another client/);
    expect((await delegate(subject, agentToken, agent)).status).toBe(200);
  });

  it('an actor_token of another space is refused', async () => {
    const { agent, storefrontToken } = await storefrontAndAgent();
    const subject = await customerToken(storefrontToken, { may_act: agent.client_id });
    const foreign = await elsewhere.credential(['products:read']);
    const problem = await refusal(
      await delegate(subject, await privateToken(foreign, ['products:read'])),
    );
    expect(problem).toMatchObject({ error: 'invalid_grant' });
    expect(problem.error_description).toMatch(/actor_token belongs to another space/);
  });

  it('an agent delegates again only through a may_act it asked for, one level deeper', async () => {
    const { storefront, agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const next = await credential(['products:read', 'cart:write']);
    const nextToken = await privateToken(next, ['products:read', 'cart:write']);
    const subject = await customerToken(storefrontToken, { may_act: agent.client_id });
    // Without may_act on its exchange, the agent's token delegates no further.
    const plain = await delegate(subject, agentToken);
    const plainToken = ((await plain.json()) as { access_token: string }).access_token;
    expect((await refusal(await delegate(plainToken, nextToken))).error).toBe('invalid_request');

    const unknown = await refusal(
      await delegate(subject, agentToken, { may_act: 'no-such-client' }),
    );
    expect(unknown).toMatchObject({ error: 'invalid_request' });
    expect(unknown.error_description).toMatch(/may_act is not an active client/);
    const asked = await delegate(subject, agentToken, { may_act: next.client_id });
    expect(asked.status).toBe(200);
    const middle = ((await asked.json()) as { access_token: string }).access_token;
    expect(decodeJwt(middle).may_act).toEqual({ sub: next.client_id });
    // Another agent than the one the agent named; a scope the agent's token lacks.
    const other = await credential(['products:read']);
    const stranger = await delegate(middle, await privateToken(other, ['products:read']));
    expect((await refusal(stranger)).error).toBe('invalid_grant');
    const wider = await delegate(middle, nextToken, { scope: 'checkout:write' });
    expect((await refusal(wider)).error).toBe('invalid_scope');

    const response = await delegate(middle, nextToken, { scope: 'products:read' });
    expect(response.status).toBe(200);
    const claims = decodeJwt(((await response.json()) as { access_token: string }).access_token);
    expect(claims).toMatchObject({
      sub: 'c-42',
      client_id: next.client_id,
      scope: 'products:read',
      act: {
        sub: next.client_id,
        act: { sub: agent.client_id, act: { sub: storefront.client_id } },
      },
    });
    expect(claims.exp).toBeLessThanOrEqual(decodeJwt(middle).exp!);
  });

  it('the chain stays within DELEGATION_MAX_DEPTH agents (3 by default)', async () => {
    const { storefrontToken } = await storefrontAndAgent();
    const agents = await Promise.all([1, 2, 3, 4].map(() => credential(['products:read'])));
    const tokens = await Promise.all(agents.map((a) => privateToken(a, ['products:read'])));
    let subject = await customerToken(storefrontToken, { may_act: agents[0]!.client_id });
    for (const at of [0, 1]) {
      const response = await delegate(subject, tokens[at]!, { may_act: agents[at + 1]!.client_id });
      expect(response.status).toBe(200);
      subject = ((await response.json()) as { access_token: string }).access_token;
    }
    // The third agent may act, and may not name a fourth.
    const fourth = await delegate(subject, tokens[2]!, { may_act: agents[3]!.client_id });
    const problem = await refusal(fourth);
    expect(problem.error).toBe('invalid_grant');
    expect(problem.error_description).toMatch(/DELEGATION_MAX_DEPTH/);
    expect((await delegate(subject, tokens[2]!)).status).toBe(200);
  });
});
