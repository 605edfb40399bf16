import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55, item 2: the limits a storefront sets for an agent. A scope the catalog grants only
 * through delegation, a budget of delegated tokens per agent and customer, and RFC 9396
 * authorization_details carried to the agent's token, never widened.
 */
const SPACE = 'space-agent-limits';
const CATALOG = {
  [AUDIENCE]: {
    ...TEST_SCOPE_CATALOG[AUDIENCE],
    'checkout:complete': { description: 'place the order', public: true, delegated: true },
  },
};
const ALL = ['products:read', 'cart:write', 'checkout:complete'];
/** What a private token may carry: never the delegated-only scope. */
const OWN = ['products:read', 'cart:write'];
const CAP = [{ type: 'payment_cap', currency: 'EUR', max_amount: '120.00' }];

let service: TestService;
const parties = delegationParties(() => service, SPACE);
const { credential, privateToken, issue, delegate, accessToken } = parties;

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(CATALOG),
    DELEGATION_BUDGET: '2',
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
});

async function storefrontAndAgent() {
  const storefront = await credential(ALL);
  const agent = await credential(ALL);
  return {
    agent,
    storefrontToken: await privateToken(storefront, OWN),
    agentToken: await privateToken(agent, OWN),
  };
}

describe('scopes granted only through delegation (catalog "delegated": true)', () => {
  it("refused in a private token: an agent's client_credentials does not buy it", async () => {
    const agent = await credential(ALL);
    const response = await service.post('/v1/credential/token', {
      ...agent,
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      scope: 'products:read checkout:complete',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_scope');
    expect(body.error_description).toMatch(
      /"checkout:complete" is granted only to an agent's delegated token: never a private token/,
    );
  });

  it('refused at /v1/issue and a plain exchange without may_act, naming the scope', async () => {
    const { storefrontToken } = await storefrontAndAgent();
    const issued = await issue(storefrontToken, { scope: 'products:read checkout:complete' });
    expect(issued.status).toBe(400);
    const problem = (await issued.json()) as { code: string; detail: string };
    expect(problem.code).toBe('invalid_scope');
    expect(problem.detail).toMatch(/"checkout:complete" is granted only to an agent/);
    const exchanged = await service.post(
      '/v1/credential/token',
      {
        grant_type: parties.TOKEN_EXCHANGE,
        subject_token: storefrontToken,
        subject_token_type: parties.ACCESS_TOKEN,
        customer_id: 'c-42',
        segment_id: 'vip',
        scope: 'checkout:complete',
      },
      { 'x-service-space-id': SPACE },
    );
    expect(exchanged.status).toBe(400);
    const body = (await exchanged.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_scope');
    expect(body.error_description).toMatch(/checkout:complete/);
    // None asked: the defaults, never a delegated one.
    const plain = await accessToken(await issue(storefrontToken, {}));
    expect(decodeJwt(plain).scope).toBe('cart:write products:read');
  });

  it('kept for the agent in may_act, not carried; the agent gets it by exchanging', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const scope = 'products:read checkout:complete';
    const subject = await accessToken(
      await issue(storefrontToken, { scope, may_act: agent.client_id }),
    );
    expect(decodeJwt(subject)).toMatchObject({
      scope: 'products:read',
      may_act: { sub: agent.client_id, scope: 'checkout:complete' },
    });
    const delegated = await accessToken(await delegate(subject, agentToken));
    expect(decodeJwt(delegated).scope).toBe('checkout:complete products:read');
  });
});

describe('an agent’s budget of delegated tokens per customer (DELEGATION_BUDGET)', () => {
  it('is spent per agent and customer, then 429 with Retry-After', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await accessToken(await issue(storefrontToken, { may_act: agent.client_id }));
    for (const _ of [1, 2]) expect((await delegate(subject, agentToken)).status).toBe(200);
    const spent = await delegate(subject, agentToken);
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await spent.json()) as { error: string; error_description: string };
    expect(body.error).toBe('rate_limited');
    expect(body.error_description).toMatch(/2 delegated tokens for this customer/);
    // Another customer of the same agent has a budget of its own.
    const other = await accessToken(
      await issue(storefrontToken, { may_act: agent.client_id, customer_id: 'c-43' }),
    );
    expect((await delegate(other, agentToken)).status).toBe(200);
  });
});

describe('the budget across concurrent exchanges', () => {
  it('more exchanges at once than the budget get exactly the budget, one statement each', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const subject = await accessToken(
      await issue(storefrontToken, { may_act: agent.client_id, customer_id: 'c-rush' }),
    );
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async () => (await delegate(subject, agentToken)).status),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    const { rows } = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM used_once_ids WHERE holder = $1`,
      [`delegation:${agent.client_id}`],
    );
    expect(rows[0]?.n).toBe(2);
  });
});

describe('RFC 9396 authorization_details, carried to the agent and never widened', () => {
  it('is carried unchanged, or narrowed to fewer objects, and recorded', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const details = [...CAP, { type: 'merchant', id: 'shop-1' }];
    const subject = await accessToken(
      await issue(storefrontToken, { may_act: agent.client_id, authorization_details: details }),
    );
    expect(decodeJwt(subject).authorization_details).toEqual(details);
    const carried = await accessToken(await delegate(subject, agentToken));
    expect(decodeJwt(carried).authorization_details).toEqual(details);
    const narrowed = await accessToken(
      await delegate(subject, agentToken, { authorization_details: JSON.stringify(CAP) }),
    );
    const claims = decodeJwt(narrowed);
    expect(claims.authorization_details).toEqual(CAP);
    const { rows } = await service.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE event_type = 'public-token-issued' AND stream_id LIKE $1`,
      [`%${claims.jti}`],
    );
    expect(rows[0]?.data).toMatchObject({
      authorization_details: CAP,
      narrowed_details: [{ type: 'merchant', id: 'shop-1' }],
    });
  });

  it('a changed or added object, or details without may_act, is invalid_authorization_details', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const without = await issue(storefrontToken, { authorization_details: CAP });
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ code: 'invalid_authorization_details' });
    const subject = await accessToken(
      await issue(storefrontToken, { may_act: agent.client_id, authorization_details: CAP }),
    );
    const raised = [{ ...CAP[0], max_amount: '500.00' }];
    for (const asked of [raised, [...CAP, { type: 'merchant', id: 'shop-2' }]]) {
      const response = await delegate(subject, agentToken, { authorization_details: asked });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_authorization_details' });
    }
  });

  it('is bounded: objects with a type, at most 8, at most 2048 characters', async () => {
    const { agent, storefrontToken } = await storefrontAndAgent();
    const tooLong = [{ type: 'note', text: 'x'.repeat(2100) }];
    for (const details of [[{ max_amount: '1' }], Array(9).fill(CAP[0]), tooLong, []]) {
      const response = await issue(storefrontToken, {
        may_act: agent.client_id,
        authorization_details: details,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_request' });
    }
  });
});

describe('evidence: every delegated issuance recorded, the trail filtered by agent', () => {
  it('records customer, chain, subject token and what was narrowed; ?agent= finds them', async () => {
    const { agent, storefrontToken, agentToken } = await storefrontAndAgent();
    const next = await credential(['products:read']);
    const subject = await accessToken(
      await issue(storefrontToken, {
        customer_id: 'c-evidence',
        may_act: agent.client_id,
        scope: 'products:read cart:write',
      }),
    );
    const middle = await accessToken(
      await delegate(subject, agentToken, { may_act: next.client_id }),
    );
    const last = await accessToken(
      await delegate(middle, await privateToken(next, ['products:read']), {
        scope: 'products:read',
      }),
    );
    const trail = async (agentId: string) => {
      const response = await fetch(
        `${service.baseUrl}/v1/audit/events?agent=${encodeURIComponent(agentId)}`,
        {
          headers: {
            authorization: `Bearer ${await service.loginToken([SPACE])}`,
            'x-service-space-id': SPACE,
          },
        },
      );
      expect(response.status).toBe(200);
      type Item = { jti: string; customer_id: string; details: Record<string, unknown> };
      return ((await response.json()) as { items: Item[] }).items;
    };
    const jtis = [subject, middle, last].map((token) => decodeJwt(token).jti);
    // The agent: allowed by the customer's token, acting in its own and in the next agent's.
    expect((await trail(agent.client_id)).map((item) => item.jti)).toEqual(jtis);
    const byNext = await trail(next.client_id);
    expect(byNext.map((item) => item.jti)).toEqual(jtis.slice(1));
    expect(byNext[1]).toMatchObject({
      customer_id: 'c-evidence',
      details: {
        scope: 'products:read',
        subject_jti: jtis[1],
        actors: [next.client_id, agent.client_id, expect.any(String)],
        narrowed: 'cart:write',
      },
    });
    expect(await trail('ci_nobody')).toEqual([]);
  });
});
