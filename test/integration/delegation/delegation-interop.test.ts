import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAuthlibClient } from '../../support/authlib-python.js';
import { delegationParties, type Credential } from '../../support/delegation.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55, item 6: Python's authlib performs the delegated exchange unchanged, and Keycloak's two
 * delegation bugs are tests here: delegation reached by a plain exchange (keycloak#52691) and an
 * introspection that drops `act` (keycloak#53029).
 */
const SPACE = 'space-agent-interop';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
const parties = delegationParties(() => service, SPACE);
const { credential, privateToken, issue, delegate, accessToken } = parties;

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
});

/** Runs test/interop/authlib_delegation.py as `agent`; its stdout is one JSON object. */
async function authlibExchange(agent: Credential, subject: string) {
  const answer = await runAuthlibClient(
    'authlib_delegation.py',
    service.baseUrl,
    agent,
    [`--space=${SPACE}`],
    { TOKEN_AUTHORITY_SUBJECT_TOKEN: subject },
  );
  return answer as {
    token?: { access_token: string; issued_token_type: string };
    introspection?: Record<string, unknown>;
    error?: string;
  };
}

async function parties3() {
  const storefront = await credential(SCOPES);
  const agent = await credential(SCOPES);
  const storefrontToken = await privateToken(storefront, SCOPES);
  return { storefront, agent, storefrontToken, agentToken: await privateToken(agent, SCOPES) };
}

describe('an unchanged authlib client performs the delegated exchange', () => {
  it('gets a token acting for the customer, introspected with act', async () => {
    const { storefront, agent, storefrontToken } = await parties3();
    const subject = await accessToken(await issue(storefrontToken, { may_act: agent.client_id }));
    const answer = await authlibExchange(agent, subject);
    expect(answer.error).toBeUndefined();
    const act = { sub: agent.client_id, act: { sub: storefront.client_id } };
    expect(decodeJwt(answer.token!.access_token)).toMatchObject({ sub: 'c-42', act });
    expect(answer.introspection).toMatchObject({ active: true, act });
  });

  it('and is refused, as an OAuth error, for a customer token naming another agent', async () => {
    const { storefrontToken, agent } = await parties3();
    const other = await credential(SCOPES);
    const subject = await accessToken(await issue(storefrontToken, { may_act: other.client_id }));
    expect((await authlibExchange(agent, subject)).error).toBe('invalid_grant');
  });
});

describe('keycloak#52691: delegation is never reached by a plain exchange', () => {
  it('no exchange without may_act yields a token whose act is the agent', async () => {
    const { agent, storefrontToken, agentToken } = await parties3();
    const plain = await accessToken(await issue(storefrontToken, {}));
    const named = await accessToken(await issue(storefrontToken, { may_act: agent.client_id }));
    const attempts = [
      // A public token without may_act, the agent as actor, authenticated or not.
      delegate(plain, agentToken),
      delegate(plain, agentToken, agent),
      // The storefront's private token as subject, the agent as actor.
      delegate(storefrontToken, agentToken, agent),
      // A plain exchange (no actor) of the may_act token, by the agent: a public token buys none.
      delegate(named, agentToken, {
        actor_token: undefined,
        actor_token_type: undefined,
        ...agent,
      }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(400);
    }
    // A plain exchange by the agent's own private token acts for the agent alone, never as delegate.
    const own = await accessToken(
      await delegate(agentToken, agentToken, {
        actor_token: undefined,
        actor_token_type: undefined,
        customer_id: 'c-42',
        segment_id: 'vip',
      }),
    );
    expect(decodeJwt(own).act).toEqual({ sub: agent.client_id });
  });
});

describe('keycloak#53029: introspection keeps act', () => {
  it('the nested act of a re-delegated token, and may_act, are in the introspection', async () => {
    const { storefront, agent, storefrontToken, agentToken } = await parties3();
    const next = await credential(SCOPES);
    const subject = await accessToken(await issue(storefrontToken, { may_act: agent.client_id }));
    const middle = await accessToken(
      await delegate(subject, agentToken, { may_act: next.client_id }),
    );
    const last = await accessToken(await delegate(middle, await privateToken(next, SCOPES)));
    const introspect = async (token: string) =>
      (await service.post('/v1/introspect', { ...storefront, token })).json();
    expect(await introspect(middle)).toMatchObject({
      active: true,
      act: { sub: agent.client_id, act: { sub: storefront.client_id } },
      may_act: { sub: next.client_id },
    });
    expect(await introspect(last)).toMatchObject({
      active: true,
      act: {
        sub: next.client_id,
        act: { sub: agent.client_id, act: { sub: storefront.client_id } },
      },
    });
  });
});
