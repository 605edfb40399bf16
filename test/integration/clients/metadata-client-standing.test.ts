import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../../src/verify/index.js';
import { delegationParties } from '../../support/delegation.js';
import {
  agentKey,
  startLocalDocuments,
  type LocalDocuments,
} from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { waitUntil } from '../../support/wait.js';
import {
  adminCall,
  AUDIENCE,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * A metadata document's client (its id the URL of its document) stands on its domain: its private
 * token is active at introspection while the space allows the domain with the token's scopes, and
 * once the domain is removed, introspection and the kit (through the revocation list) refuse it.
 */
const SPACE = 'space-cimd-standing';
const ISSUER = 'http://token-authority.test';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let service: TestService;
let docs: LocalDocuments;
let agent: Awaited<ReturnType<typeof agentKey>>;
const { credential } = delegationParties(() => service, SPACE);
let introspector: Awaited<ReturnType<typeof credential>>;

const admin = async (method: string, path: string, body?: unknown) =>
  adminCall(service, SPACE, method, path, body, 'alice');

/** A private token for the document served at `path` under `host`. */
async function urlClientToken(host: string, path: string, scope: string): Promise<string> {
  const clientId = `https://${host}:${docs.port}${path}`;
  docs.serve(path, { body: { client_id: clientId, jwks: agent.jwks } });
  const response = await service.post(
    '/v1/credential/token',
    {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await agent.assert(clientId, ISSUER),
      audience: AUDIENCE,
      scope,
    },
    { 'x-service-space-id': SPACE },
  );
  const body = (await response.json()) as { access_token: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token;
}

async function active(token: string): Promise<boolean> {
  const response = await service.post('/v1/introspect', { ...introspector, token });
  return ((await response.json()) as { active: boolean }).active;
}

const kit = createVerifier({
  issuer: ISSUER,
  audience: AUDIENCE,
  kinds: ['private'],
  revocationRefreshSeconds: 0.1,
  fetch: (input, init) => fetch(String(input).replace(ISSUER, service.baseUrl), init),
});

async function kitStatus(token: string): Promise<number> {
  const headers = new Map([['authorization', `Bearer ${token}`]]);
  return kit
    .verify({ method: 'GET', url: 'https://shop.example/orders', header: (n) => headers.get(n) })
    .then(
      () => 200,
      (error: { status: number }) => error.status,
    );
}

beforeAll(async () => {
  service = await startTestService({ SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG) });
  docs = await startLocalDocuments();
  agent = await agentKey();
  introspector = await credential(['products:read']);
  for (const domain of ['localhost', '127.0.0.1']) {
    const scopes = ['orders:read', 'products:read'];
    expect((await admin('POST', '/v1/metadata-client-domains', { domain, scopes })).status).toBe(
      201,
    );
  }
});

describe("a metadata document's client stands on its domain", () => {
  it('active while allowed; removed: inactive and refused by the kit, another domain unaffected', async () => {
    const removed = await urlClientToken('localhost', '/agents/one.json', 'orders:read');
    const other = await urlClientToken('127.0.0.1', '/agents/two.json', 'orders:read');
    expect(await active(removed)).toBe(true);
    expect(await active(other)).toBe(true);
    expect(await kitStatus(removed)).toBe(200);

    expect((await admin('DELETE', '/v1/metadata-client-domains/localhost')).status).toBe(204);
    expect(await active(removed)).toBe(false);
    const status = await waitUntil(
      () => kitStatus(removed),
      (answer) => answer !== 200,
      { timeoutMs: 5000, intervalMs: 200 },
    );
    expect(status).toBe(401);
    const list = (await (
      await fetch(`${service.baseUrl}/v1/revocations?space_id=${SPACE}`)
    ).json()) as { removed_client_domains: Array<{ domain: string }> };
    expect(list.removed_client_domains.map((entry) => entry.domain)).toEqual(['localhost']);

    expect(await active(other)).toBe(true);
    expect(await kitStatus(other)).toBe(200);
  });

  it('narrowed below its token: inactive at introspection', async () => {
    const token = await urlClientToken('127.0.0.1', '/agents/three.json', 'products:read');
    expect(await active(token)).toBe(true);
    const narrowed = { domain: '127.0.0.1', scopes: ['orders:read'] };
    expect((await admin('POST', '/v1/metadata-client-domains', narrowed)).status).toBeLessThan(300);
    expect(await active(token)).toBe(false);
  });
});
