import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../../src/verify/index.js';
import { delegationParties } from '../../support/delegation.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { waitUntil } from '../../support/wait.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55: revoking the customer's `may_act` token voids the delegated tokens exchanged from it
 * and those re-delegated below them, at introspection and in the verifier kit, as revoking a
 * private token voids the public tokens it bought (parent_jti).
 */
const SPACE = 'space-agent-revocation';
const ISSUER = 'http://token-authority.test';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
const { credential, privateToken, issue, delegate, accessToken } = delegationParties(
  () => service,
  SPACE,
);

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
});

const kit = () =>
  createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    revocationRefreshSeconds: 0.1,
    fetch: (input, init) => fetch(String(input).replace(ISSUER, service.baseUrl), init),
  });

/** The kit's answer once its list is refreshed (the service rebuilds the list each second). */
const kitRefuses = (verifier: ReturnType<typeof kit>, token: string) =>
  waitUntil(
    () => kitStatus(verifier, token),
    (status) => status !== 200,
    { timeoutMs: 5000, intervalMs: 200 },
  );

/** What the kit answers a request with `token`: 200 when it passes, its status otherwise. */
async function kitStatus(verifier: ReturnType<typeof kit>, token: string): Promise<number> {
  const headers = new Map([['authorization', `Bearer ${token}`]]);
  return verifier
    .verify({ method: 'GET', url: 'https://shop.example/cart', header: (n) => headers.get(n) })
    .then(
      () => 200,
      (error: { status: number }) => error.status,
    );
}

async function chain() {
  const storefront = await credential(SCOPES);
  const agent = await credential(SCOPES);
  const next = await credential(SCOPES);
  const subject = await accessToken(
    await issue(await privateToken(storefront, SCOPES), { may_act: agent.client_id }),
  );
  const agentToken = await privateToken(agent, SCOPES);
  const delegated = await accessToken(await delegate(subject, agentToken));
  const middle = await accessToken(
    await delegate(subject, agentToken, { may_act: next.client_id }),
  );
  const redelegated = await accessToken(await delegate(middle, await privateToken(next, SCOPES)));
  return { storefront, agent, next, subject, delegated, middle, redelegated };
}

const revoke = (client: { client_id: string; client_secret: string }, token: string) =>
  service.post('/v1/revoke', { ...client, token });

async function active(client: { client_id: string; client_secret: string }, token: string) {
  const response = await service.post('/v1/introspect', { ...client, token });
  return ((await response.json()) as { active: boolean }).active;
}

describe('revoking the customer’s may_act token voids the delegation below it', () => {
  it('introspection says inactive and the kit refuses, the re-delegated token too', async () => {
    const { storefront, subject, delegated, middle, redelegated } = await chain();
    const verifier = kit();
    for (const token of [delegated, middle, redelegated]) {
      expect(await active(storefront, token)).toBe(true);
      expect(await kitStatus(verifier, token)).toBe(200);
    }
    expect((await revoke(storefront, subject)).status).toBe(200);
    for (const token of [delegated, middle, redelegated]) {
      expect(await active(storefront, token)).toBe(false);
      expect(await kitRefuses(verifier, token)).toBe(401);
    }
  });

  it('revoking the middle agent’s token voids the one re-delegated from it alone', async () => {
    const { storefront, agent, delegated, middle, redelegated } = await chain();
    expect((await revoke(agent, middle)).status).toBe(200);
    expect(await active(storefront, redelegated)).toBe(false);
    expect(await kitRefuses(kit(), redelegated)).toBe(401);
    expect(await active(storefront, delegated)).toBe(true);
  });

  it('a revoked may_act token is exchanged no more, nor the tokens below it', async () => {
    const storefront = await credential(SCOPES);
    const agent = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: agent.client_id }),
    );
    const agentToken = await privateToken(agent, SCOPES);
    expect((await revoke(storefront, subject)).status).toBe(200);
    const response = await delegate(subject, agentToken);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('revoking the storefront’s credential voids every token its customers’ agents got', () => {
  const revokeCredential = async (client: { client_id: string }) =>
    fetch(`${service.baseUrl}/v1/credential/${client.client_id}`, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ reason: 'its secret leaked' }),
    });

  it('at introspection, at exchange and /v1/issue, and in the kit (its revocation list)', async () => {
    const { storefront, agent, next, delegated, middle, redelegated } = await chain();
    const storefrontToken = await privateToken(storefront, SCOPES);
    const verifier = kit();
    expect(await kitStatus(verifier, delegated)).toBe(200);
    expect((await revokeCredential(storefront)).status).toBe(200);
    // Asked by the agent of its own tokens: the storefront introspects no more.
    for (const token of [delegated, middle, redelegated]) {
      expect(await active(agent, token)).toBe(false);
      expect(await kitRefuses(verifier, token)).toBe(401);
    }
    // The next agent's exchange of a token that came through the storefront is refused.
    const refused = await delegate(middle, await privateToken(next, SCOPES));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    // /v1/issue takes neither a delegated token nor the revoked storefront's own.
    expect((await issue(delegated, {})).status).toBe(401);
    expect((await issue(storefrontToken, {})).status).toBe(401);
  });
});
