import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { mintDevLoginToken } from '../../../src/crypto/login-tokens.js';
import { tempDir } from '../../support/after-file.js';
import { postJson, startProgram } from '../../support/agents/programs.js';
import { freePortBelow32768 } from '../../support/postgres-source.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { AUDIENCE } from '../../support/test-service.js';
import { createTestDatabase } from '../../support/test-database.js';

/**
 * Issue 55's flow across processes: the token service, a storefront's server, two agents and a
 * resource server using the verifier kit, each a process of its own, talking HTTP only. The agent
 * knows the resource alone and finds the token service through the kit's RFC 9728 metadata.
 */
const SPACE = 'space-agent-processes';
const ALL = ['products:read', 'cart:write', 'checkout:write', 'orders:read', 'checkout:complete'];
const AGENT_SCOPES = ['products:read', 'cart:write', 'checkout:write', 'checkout:complete'];
// What a private token asks: never the delegated-only scope, which only an exchange grants.
const own = (scopes: string[]) => scopes.filter((scope) => scope !== 'checkout:complete').join(' ');
/** The customer's limits: placing the order only through an agent, 3 tokens per agent and customer. */
const CATALOG = {
  [AUDIENCE]: {
    ...TEST_SCOPE_CATALOG[AUDIENCE],
    'checkout:complete': { description: 'place the order', public: true, delegated: true },
  },
};
const BUDGET = 3;
const programs = 'test/support/agents';

type Credential = { client_id: string; client_secret: string };
type Answer = { status: number; body: Record<string, unknown> };
type Acted = {
  exchange: { status: number; error?: string; error_description?: string };
  claims?: Record<string, unknown>;
  resource?: { status: number; www_authenticate: string | null; body: Record<string, unknown> };
};

let service: string;
let resource: string;
let storefront: { url: string; credential: Credential };
let agent: { url: string; credential: Credential };
let otherAgent: { url: string; credential: Credential };

beforeAll(async () => {
  const database = await createTestDatabase(4);
  const dataDir = await tempDir('agent-processes-');
  // What npm start's supervisor does before its API starts: the audit key pair exists.
  await loadAuditSigningKey(undefined, dataDir);
  const login = await mintDevLoginToken({
    dataDir,
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'alice',
    spaces: [SPACE],
    ttlSeconds: 600,
  });
  const [apiPort, storefrontPort, resourcePort, agentPort, otherPort] = await Promise.all(
    [1, 2, 3, 4, 5].map(() => freePortBelow32768()),
  );
  service = `http://127.0.0.1:${apiPort}`;
  await startProgram('src/cli/api.ts', apiPort!, {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    MIGRATE_ON_START: 'false',
    TOKEN_ISSUER: service,
    TOKEN_AUDIENCES: AUDIENCE,
    SCOPE_CATALOG: JSON.stringify(CATALOG),
    DELEGATION_BUDGET: String(BUDGET),
    LOG_LEVEL: 'warn',
  });
  const credential = async (scopes: string[]) => {
    const response = await fetch(`${service}/v1/credential`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${login}`,
        'x-service-space-id': SPACE,
      },
      body: JSON.stringify({ name: 'client', description: 'agent processes', scopes }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Credential;
  };
  const [storefrontCredential, agentCredential, otherCredential] = [
    await credential(ALL),
    await credential(AGENT_SCOPES),
    await credential(AGENT_SCOPES),
  ];
  resource = `http://127.0.0.1:${resourcePort}/storefront`;
  const common = { SPACE, AUDIENCE };
  const agentEnv = (client: Credential) => ({
    ...common,
    RESOURCE: resource,
    CLIENT_ID: client.client_id,
    CLIENT_SECRET: client.client_secret,
    SCOPE: own(AGENT_SCOPES),
  });
  await Promise.all([
    startProgram(`${programs}/storefront-server.ts`, storefrontPort!, {
      ...common,
      TOKEN_SERVICE: service,
      CLIENT_ID: storefrontCredential.client_id,
      CLIENT_SECRET: storefrontCredential.client_secret,
      SCOPE: own(ALL),
    }),
    startProgram(`${programs}/resource-server.ts`, resourcePort!, {
      ISSUER: service,
      AUDIENCE,
      RESOURCE: resource,
      AGENT_ID: agentCredential.client_id,
    }),
  ]);
  // The agents discover the token service through the resource server: started after it.
  await Promise.all([
    startProgram(`${programs}/agent.ts`, agentPort!, agentEnv(agentCredential)),
    startProgram(`${programs}/agent.ts`, otherPort!, agentEnv(otherCredential)),
  ]);
  storefront = { url: `http://127.0.0.1:${storefrontPort}`, credential: storefrontCredential };
  agent = { url: `http://127.0.0.1:${agentPort}`, credential: agentCredential };
  otherAgent = { url: `http://127.0.0.1:${otherPort}`, credential: otherCredential };
});

/** The storefront's server buys a customer's token (c-42 unless named), naming `mayAct` when given. */
async function customerToken(mayAct?: string, scope?: string, customer = 'c-42'): Promise<string> {
  const answer = await postJson<Answer>(`${storefront.url}/customer-token`, {
    customer_id: customer,
    ...(mayAct === undefined ? {} : { may_act: mayAct }),
    ...(scope === undefined ? {} : { scope }),
  });
  expect(answer.status).toBe(200);
  return answer.body.access_token as string;
}

const act = (who: { url: string }, subject: string, path: string, scope?: string) =>
  postJson<Acted>(`${who.url}/act`, { subject_token: subject, path, ...(scope ? { scope } : {}) });

/** A request of the customer's own browser (no agent) to the resource server. */
const inPerson = (token: string | undefined, path: string) =>
  fetch(`${resource}${path}`, {
    method: 'POST',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

describe('a storefront, an agent and a resource server, each a process (issue 55)', () => {
  it('the agent found the token service through the kit’s metadata (MCP SDK discovery)', async () => {
    const { metadata, issuer } = await postJson<{ metadata: object; issuer: string }>(
      `${agent.url}/discovered`,
      {},
    );
    expect(issuer).toBe(service);
    expect(metadata).toEqual({
      resource,
      authorization_servers: [service],
      scopes_supported: ['products:read', 'cart:write', 'checkout:write'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'],
      dpop_bound_access_tokens_required: false,
      resource_name: 'Storefront API',
    });
    // From a bare 401, as an MCP client starts: the challenge names the metadata (read by the
    // SDK), the metadata the authorization server, whose own metadata names the token exchange.
    const unauthenticated = await inPerson(undefined, '/agent/cart');
    expect(unauthenticated.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(unauthenticated);
    expect(challenge.resourceMetadataUrl?.href).toBe(
      `${new URL(resource).origin}/.well-known/oauth-protected-resource/storefront`,
    );
    expect(challenge.scope).toBe('cart:write');
    const found = await discoverOAuthProtectedResourceMetadata(resource, {
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    expect(found.authorization_servers).toEqual([service]);
    // The SDK's own authorization-server step (discoverOAuthServerInfo) is not used: its schema
    // requires an authorization_endpoint, which a service of client credentials and token
    // exchange has none of (RFC 8414 §2 makes it optional then). RFC 8414 read as it is:
    const server = (await (
      await fetch(`${service}/.well-known/oauth-authorization-server`)
    ).json()) as { issuer: string; grant_types_supported: string[] };
    expect(server.issuer).toBe(service);
    expect(server.grant_types_supported).toContain(
      'urn:ietf:params:oauth:grant-type:token-exchange',
    );
  });

  it('the customer allowed the agent: it exchanges, and acts at the agents’ route', async () => {
    const subject = await customerToken(agent.credential.client_id, 'products:read cart:write');
    const acted = await act(agent, subject, 'storefront/agent/cart');
    expect(acted.exchange.status).toBe(200);
    expect(acted.claims).toMatchObject({
      sub: 'c-42',
      client_id: agent.credential.client_id,
      act: { sub: agent.credential.client_id, act: { sub: storefront.credential.client_id } },
      scope: 'cart:write products:read',
    });
    expect(acted.resource).toEqual({
      status: 200,
      www_authenticate: null,
      body: {
        customer: 'c-42',
        actors: [agent.credential.client_id, storefront.credential.client_id],
        scope: 'cart:write products:read',
      },
    });
  });

  it('no may_act: the exchange is refused (a plain exchange never reaches delegation)', async () => {
    const acted = await act(agent, await customerToken(), 'storefront/agent/cart');
    expect(acted.exchange).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(acted.exchange.error_description).toMatch(/may_act/);
    expect(acted.resource).toBeUndefined();
  });

  it('another agent than the one the customer allowed: refused', async () => {
    const subject = await customerToken(agent.credential.client_id);
    const acted = await act(otherAgent, subject, 'storefront/agent/cart');
    expect(acted.exchange).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(acted.exchange.error_description).toMatch(/may_act does not name/);
  });

  it('a plain token at the agents’ route is 403, the challenge naming why and the metadata', async () => {
    const metadataUrl = `${new URL(resource).origin}/.well-known/oauth-protected-resource/storefront`;
    const plain = await customerToken(undefined, 'cart:write checkout:write');
    const response = await inPerson(plain, '/agent/cart');
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="delegation_required", error_description="this route takes only a token an agent holds for a customer (RFC 8693 act)", resource_metadata="${metadataUrl}"`,
    );
    // In person, the customer checks out; the agent may not, whatever scopes it holds.
    expect((await inPerson(plain, '/account/checkout')).status).toBe(200);
    const subject = await customerToken(agent.credential.client_id, 'checkout:write cart:write');
    const acted = await act(agent, subject, 'storefront/account/checkout');
    expect(acted.exchange.status).toBe(200);
    expect(acted.resource?.status).toBe(403);
    expect(acted.resource?.www_authenticate).toMatch(
      /^Bearer error="delegation_refused", error_description="[^"]+", resource_metadata="http/,
    );
  });

  it('the customer’s limits hold across the processes: agent-only scope, no widening, no longer life, a budget', async () => {
    // Placing the order is the agent's alone: the storefront cannot buy it for the customer.
    const direct = await postJson<Answer>(`${storefront.url}/customer-token`, {
      customer_id: 'c-77',
      scope: 'checkout:complete',
    });
    expect(direct.status).toBe(400);
    expect(JSON.stringify(direct.body)).toMatch(/checkout:complete/);
    const subject = await customerToken(
      agent.credential.client_id,
      'cart:write checkout:complete',
      'c-77',
    );
    expect(decodeJwt(subject).scope).toBe('cart:write');
    // Wider than the customer's token: refused, and nothing spent of the budget.
    const wider = await act(agent, subject, 'storefront/agent/cart', 'cart:write checkout:write');
    expect(wider.exchange).toMatchObject({ status: 400, error: 'invalid_scope' });
    const acted = await act(
      agent,
      subject,
      'storefront/agent/cart',
      'cart:write checkout:complete',
    );
    expect(acted.exchange.status).toBe(200);
    expect(acted.claims?.scope).toBe('cart:write checkout:complete');
    expect(acted.claims?.exp).toBeLessThanOrEqual(decodeJwt(subject).exp!);
    expect(acted.resource?.status).toBe(200);
    // The budget: BUDGET tokens for this agent and customer, then 429.
    const outcomes = [];
    for (let i = 0; i < BUDGET; i++) {
      outcomes.push((await act(agent, subject, 'storefront/agent/cart', 'cart:write')).exchange);
    }
    expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 429]);
    expect(outcomes[2]).toMatchObject({ error: 'rate_limited' });
  });
});
