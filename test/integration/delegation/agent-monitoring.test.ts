import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { delegationParties } from '../../support/delegation.js';
import { startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55 item 5: the dashboard shows a space's agents, the clients acting for customers in
 * delegated tokens, with how many each was in and the last.
 */
const SPACE = 'space-agent-monitoring';
const ALL = ['products:read', 'cart:write', 'checkout:write', 'orders:read'];
let service: TestService;
const parties = delegationParties(() => service, SPACE);

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    PUBLIC_TOKEN_TTL_SECONDS: '3600',
  });
});

const agents = async (space = SPACE) => {
  const response = await fetch(`${service.baseUrl}/v1/monitoring/agents?window=1h`, {
    headers: {
      authorization: `Bearer ${await service.loginToken([space])}`,
      'x-service-space-id': space,
    },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { agents: unknown[] }).agents;
};

describe('agents per space (GET /v1/monitoring/agents)', () => {
  it('counts each agent named in delegated issuances, busiest first; none in another space', async () => {
    expect(await agents()).toEqual([]);
    const storefront = await parties.credential(ALL);
    const busy = await parties.credential(['products:read']);
    const quiet = await parties.credential(['products:read']);
    const storefrontToken = await parties.privateToken(storefront, ALL);
    for (const [agent, times] of [
      [busy, 2],
      [quiet, 1],
    ] as const) {
      const actor = await parties.privateToken(agent, ['products:read']);
      for (let n = 0; n < times; n++) {
        const subject = await parties.accessToken(
          await parties.issue(storefrontToken, {
            may_act: agent.client_id,
            scope: 'products:read',
          }),
        );
        await parties.accessToken(await parties.delegate(subject, actor));
      }
    }
    expect(await agents()).toEqual([
      { client_id: busy.client_id, name: 'client', issuances: 2, last_used: expect.any(String) },
      { client_id: quiet.client_id, name: 'client', issuances: 1, last_used: expect.any(String) },
    ]);
    expect(await agents('space-agent-monitoring-other')).toEqual([]);
  });
});
