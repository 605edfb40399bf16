import { beforeAll, describe, expect, it } from 'vitest';
import {
  agentKey,
  startLocalDocuments,
  type LocalDocuments,
} from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import {
  adminCall,
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * A metadata domain is one client: every document URL under an allowed domain spends the one
 * budget its admin set when allowing it, and one failure count, so paths under it cannot take
 * the space's whole budget from the storefront.
 */
const SPACE = 'space-cimd-budget';
const OURS = 'http://token-authority.test';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let service: TestService;
let docs: LocalDocuments;
let agent: Awaited<ReturnType<typeof agentKey>>;

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await adminCall(service, SPACE, method, path, body, 'alice');
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** A document at `path` naming itself, and its agent's token request's status. */
async function tokenAt(path: string, key = agent): Promise<number> {
  const clientId = `https://localhost:${docs.port}${path}`;
  docs.serve(path, { body: { client_id: clientId, jwks: agent.jwks } });
  const response = await fetch(`${service.baseUrl}/v1/credential/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-service-space-id': SPACE,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await key.assert(clientId, OURS),
      audience: AUDIENCE,
    }),
  });
  return response.status;
}

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    CLIENT_RATE_LIMIT_PER_MINUTE: '6',
    SPACE_RATE_LIMIT_PER_MINUTE: '12',
    FAILED_AUTH_LIMIT_PER_MINUTE: '3',
  });
  docs = await startLocalDocuments();
  agent = await agentKey();
});

describe('a metadata domain’s budget', () => {
  it('is set when the domain is allowed, validated, and recorded in its event', async () => {
    for (const budget_per_minute of [0, 1.5, '3', 2_000_000]) {
      const refused = await admin('POST', '/v1/metadata-client-domains', {
        domain: 'localhost',
        budget_per_minute,
      });
      expect(refused.status, JSON.stringify(budget_per_minute)).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('budget_per_minute');
    }
    const allowed = await admin('POST', '/v1/metadata-client-domains', {
      domain: 'localhost',
      budget_per_minute: 3,
    });
    expect(allowed).toMatchObject({ status: 201, body: { budget_per_minute: 3 } });
    const audit = await admin('GET', '/v1/audit/events?event_type=metadata-client-domain-allowed');
    const [entry] = audit.body.items as Array<{ details: Record<string, unknown> }>;
    expect(entry?.details).toMatchObject({ domain: 'localhost', budget_per_minute: 3 });
    // Another domain allowed with none named gets the default.
    const other = await admin('POST', '/v1/metadata-client-domains', { domain: 'agents.test' });
    expect(other.body.budget_per_minute).toBe(600);
  });

  it('is shared by every path under the domain; the storefront keeps its own', async () => {
    const storefront = await createCredentialVia(service, SPACE);
    const statuses = [];
    for (const path of ['/a.json', '/b.json', '/c.json', '/d.json', '/e.json']) {
      statuses.push(await tokenAt(`/agents${path}`));
    }
    // Three for the domain; a fourth path, or a fifth, gets no budget of its own.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    await expect(privateTokenVia(service, storefront)).resolves.toBeTruthy();
  });

  it('counts failed authentications per domain, not per path', async () => {
    const stranger = await agentKey();
    const statuses = [];
    for (const path of ['/f.json', '/g.json', '/h.json', '/i.json']) {
      statuses.push(await tokenAt(`/wrong${path}`, stranger));
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
