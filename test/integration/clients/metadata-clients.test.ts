import { decodeJwt } from 'jose';
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
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 55 item 3: an agent whose client id is the https URL of its client ID metadata document
 * (draft-ietf-oauth-client-id-metadata-document) gets a private token by private_key_jwt in a
 * space whose admins allow its domain, without being registered.
 */
const SPACE = 'space-cimd';
const EMPTY_SPACE = 'space-cimd-none';
const OTHER_SPACE = 'space-cimd-other';
const OURS = 'http://token-authority.test';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let service: TestService;
let docs: LocalDocuments;
let agent: Awaited<ReturnType<typeof agentKey>>;

interface Answer {
  readonly items: Array<Record<string, unknown> & { details?: Record<string, unknown> }>;
  readonly access_token: string;
  readonly scope?: string;
  readonly error: string;
  readonly error_description: string;
}

const admin = async (method: string, path: string, body?: unknown, space = SPACE) => {
  const response = await adminCall(service, space, method, path, body, 'alice');
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Answer };
};

/** The agent's token request, as any private_key_jwt client sends it, naming the space. */
const token = async (
  clientId: string,
  options: {
    space?: string;
    scope?: string;
    key?: typeof agent;
    base?: string;
    assertion?: string;
  } = {},
) => {
  const assertion = options.assertion ?? (await (options.key ?? agent).assert(clientId, OURS));
  const response = await fetch(`${options.base ?? service.baseUrl}/v1/credential/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-service-space-id': options.space ?? SPACE,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
      audience: AUDIENCE,
      ...(options.scope ? { scope: options.scope } : {}),
    }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
};

/** Serves a document naming itself at `path` (what it says overridden by `extra`). */
const document = (path: string, extra: Record<string, unknown> = {}, host = 'localhost') => {
  const clientId = `https://${host}:${docs.port}${path}`;
  docs.serve(path, {
    body: { client_id: clientId, client_name: 'Shopping agent', jwks: agent.jwks, ...extra },
    headers: { 'cache-control': 'max-age=60' },
  });
  return clientId;
};

const firstSeen = async (clientId: string, space = SPACE) =>
  (
    await admin('GET', '/v1/audit/events?event_type=metadata-client-first-seen', undefined, space)
  ).body.items.filter((item) => item.details?.client_id === clientId);

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '50',
  });
  docs = await startLocalDocuments();
  agent = await agentKey();
  expect(
    (
      await admin('POST', '/v1/metadata-client-domains', {
        domain: 'localhost',
        scopes: ['orders:read'],
      })
    ).status,
  ).toBe(201);
  await admin('POST', '/v1/metadata-client-domains', { domain: '169.254.169.254' });
  await admin('POST', '/v1/metadata-client-domains', { domain: '127.0.0.1' }, OTHER_SPACE);
});

describe('a client ID metadata document as a client', () => {
  it('is announced in discovery', async () => {
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it('gets a private token with the scopes allowed for its domain, the document as evidence', async () => {
    const clientId = document('/agents/shopper.json');
    const answer = await token(clientId, { scope: 'orders:read' });
    expect(answer.status, answer.body.error_description).toBe(200);
    const claims = decodeJwt(answer.body.access_token);
    expect(claims).toMatchObject({ client_id: clientId, sub: clientId, scope: 'orders:read' });
    // Beyond what the admin allowed the domain: refused.
    expect((await token(clientId, { scope: 'checkout:write' })).body.error).toBe('invalid_scope');
    const audit = await admin(
      'GET',
      `/v1/audit/events?event_type=private-token-issued&client_id=${encodeURIComponent(clientId)}`,
    );
    const entry = audit.body.items.find((item) => item.jti === claims.jti);
    expect(entry?.details?.metadata_document).toBe(clientId);
    // Its first use is one event naming the document and its key; a second use adds none.
    expect((await token(clientId)).status).toBe(200);
    const seen = await firstSeen(clientId);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.details?.key_thumbprints).toHaveLength(1);
    // Held as Cache-Control said: fetched once for three tokens.
    expect(docs.hits.get('/agents/shopper.json')).toBe(1);
  });

  it('takes its keys from its jwks_uri, and fetches it anew when it says no-store', async () => {
    docs.serve('/agents/keys.json', { body: agent.jwks });
    const clientId = `https://localhost:${docs.port}/agents/by-uri.json`;
    docs.serve('/agents/by-uri.json', {
      body: { client_id: clientId, jwks_uri: `https://localhost:${docs.port}/agents/keys.json` },
      headers: { 'cache-control': 'no-store' },
    });
    expect((await token(clientId)).status).toBe(200);
    expect((await token(clientId)).status).toBe(200);
    expect(docs.hits.get('/agents/by-uri.json')).toBe(2);
  });

  it('records a first use once when two replicas see it at the same time', async () => {
    const replica = await startTestService(
      { SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG) },
      undefined,
      {
        database: service.database,
        dataDir: service.dataDir,
      },
    );
    const clientId = document('/agents/racer.json');
    const answers = await Promise.all(
      [service.baseUrl, replica.baseUrl, service.baseUrl, replica.baseUrl].map((base) =>
        token(clientId, { base }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(await firstSeen(clientId)).toHaveLength(1);
  });

  it('lists, and stops at a removal, each change an event naming who', async () => {
    const listed = await admin('GET', '/v1/metadata-client-domains');
    expect(listed.body.items).toContainEqual({
      domain: 'localhost',
      scopes: ['orders:read'],
      budget_per_minute: 600,
    });
    await admin('POST', '/v1/metadata-client-domains', { domain: 'gone.example' });
    expect((await admin('DELETE', '/v1/metadata-client-domains/gone.example')).status).toBe(204);
    expect((await admin('DELETE', '/v1/metadata-client-domains/gone.example')).status).toBe(204);
    expect((await admin('DELETE', '/v1/metadata-client-domains/never.example')).status).toBe(404);
    for (const type of ['metadata-client-domain-allowed', 'metadata-client-domain-removed']) {
      const audit = await admin('GET', `/v1/audit/events?event_type=${type}`);
      expect(audit.body.items[0]?.actor, type).toBe('user:alice');
    }
  });
});

describe('refusals', () => {
  const refused = async (answer: Awaited<ReturnType<typeof token>>, why: RegExp) => {
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.body.error_description).toMatch(why);
  };

  it('its private token at /v1/issue: told that such a client buys no public token', async () => {
    const clientId = document('/agents/buyer.json');
    const { access_token: privateToken } = (await token(clientId)).body;
    const response = await fetch(`${service.baseUrl}/v1/issue`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${privateToken}`,
        'x-service-space-id': SPACE,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ customer_id: 'c-1', segment_id: 'vip' }),
    });
    // RFC 9457 problem details, as /v1/issue answers.
    const body = (await response.json()) as { detail: string };
    expect(response.status).toBe(403);
    expect(body.detail).toMatch(/metadata document's client buys no public token/);
    expect(body.detail).not.toMatch(/no longer active/);
  });

  it('a domain the space does not allow', async () => {
    await refused(await token(document('/agents/a.json'), { space: EMPTY_SPACE }), /not allowed/);
  });

  it('a domain allowed in another space only', async () => {
    const clientId = document('/agents/b.json', {}, '127.0.0.1');
    await refused(await token(clientId), /127\.0\.0\.1 is not allowed/);
    expect((await token(clientId, { space: OTHER_SPACE })).status).toBe(200);
  });

  it('an http:// URL', async () => {
    await refused(await token(`http://localhost:${docs.port}/agents/c.json`), /https/);
  });

  it('a document whose client_id is not its URL', async () => {
    const clientId = document('/agents/d.json', {
      client_id: `https://localhost:${docs.port}/agents/other.json`,
    });
    await refused(await token(clientId), /client_id is not its URL/);
  });

  it('an assertion signed by a key not in the document', async () => {
    const clientId = document('/agents/e.json');
    await refused(await token(clientId, { key: await agentKey() }), /not signed by a key/);
  });

  it('an assertion used before, in this space or another allowing the domain', async () => {
    await admin('POST', '/v1/metadata-client-domains', { domain: 'localhost' }, OTHER_SPACE);
    const clientId = document('/agents/g.json');
    const assertion = await agent.assert(clientId, OURS);
    expect((await token(clientId, { assertion })).status).toBe(200);
    await refused(await token(clientId, { assertion }), /not signed by a key/);
    await refused(await token(clientId, { assertion, space: OTHER_SPACE }), /not signed by a key/);
  });

  it('a document too large', async () => {
    const clientId = document('/agents/f.json', { padding: 'x'.repeat(6000) });
    await refused(await token(clientId), /too large/);
  });

  it("a document at an address the sinks' SSRF rules refuse (the metadata service)", async () => {
    await refused(await token('https://169.254.169.254/latest/meta-data.json'), /refused/);
  });
});
