import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import {
  agentKey,
  serveAgent,
  startLocalDocuments,
  type LocalDocuments,
} from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { adminCall, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 64 item 3: an agent known only by its client ID metadata document can be named in
 * `may_act` and act for the customer with an assertion of its document's keys (actor_token_type
 * jwt), in a space whose admins allow its domain: no credential registered for it.
 */
const SPACE = 'space-cimd-agent';
const OTHER_SPACE = 'space-cimd-agent-other';
const ISSUER = 'http://token-authority.test';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
let docs: LocalDocuments;
let key: Awaited<ReturnType<typeof agentKey>>;
const parties = delegationParties(() => service, SPACE);
const { credential, issue, delegate, accessToken, refusal } = parties;
const asJwt = { actor_token_type: JWT_TYPE };
const NOT_ACTIVE = { code: 'invalid_request', invalid_fields: [{ field: 'may_act' }] };

const admin = async (method: string, path: string, body?: unknown, space = SPACE) =>
  adminCall(service, space, method, path, body);

const agentAt = (path: string, host = 'localhost') => serveAgent(docs, key.jwks, path, host);

const storefrontToken = async (space = SPACE) => {
  const parts = space === SPACE ? parties : delegationParties(() => service, space);
  return parts.privateToken(await parts.credential(SCOPES), SCOPES);
};

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
  docs = await startLocalDocuments();
  key = await agentKey();
  const allowed = await admin('POST', '/v1/metadata-client-domains', {
    domain: 'localhost',
    scopes: SCOPES,
  });
  expect(allowed.status).toBe(201);
  // Another space allows 127.0.0.1, which this one does not.
  await admin('POST', '/v1/metadata-client-domains', { domain: '127.0.0.1' }, OTHER_SPACE);
});

describe('an agent known by its metadata document, named in may_act', () => {
  it('is accepted in may_act and gets the delegated token by its document’s keys', async () => {
    const agent = agentAt('/agents/named.json');
    const issued = await issue(await storefrontToken(), { may_act: agent });
    const subject = await accessToken(issued);
    expect(decodeJwt(subject)).toMatchObject({ may_act: { sub: agent } });
    const delegated = await accessToken(
      await delegate(subject, await key.assert(agent, ISSUER), asJwt),
    );
    expect(decodeJwt(delegated)).toMatchObject({ sub: 'c-42', act: { sub: agent } });
    // Introspected by the storefront, it stands on the domain the space allows.
    const storefront = await credential(SCOPES);
    const introspected = await service.post('/v1/introspect', {
      ...storefront,
      token: delegated,
    });
    expect(await introspected.json()).toMatchObject({ active: true, act: { sub: agent } });
  });

  it('is refused in may_act when its domain is not allowed in the space, or it is no https URL', async () => {
    const token = await storefrontToken();
    for (const named of [
      agentAt('/agents/elsewhere.json', '127.0.0.1'),
      `http://localhost:${docs.port}/agents/plain.json`,
      `https://localhost:${docs.port}/agents/frag.json#x`,
    ]) {
      const response = await issue(token, { may_act: named });
      expect(response.status, named).toBe(400);
      expect(await response.json()).toMatchObject(NOT_ACTIVE);
    }
  });

  it('a replayed assertion, or one by other keys, is refused', async () => {
    const agent = agentAt('/agents/replay.json');
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: agent }));
    const once = await key.assert(agent, ISSUER);
    await accessToken(await delegate(subject, once, asJwt));
    const replayed = await refusal(await delegate(subject, once, asJwt));
    expect(replayed.error).toBe('invalid_grant');
    expect(replayed.error_description).toMatch(/^actor_token: /);
    const stranger = await agentKey();
    const forged = await refusal(
      await delegate(subject, await stranger.assert(agent, ISSUER), asJwt),
    );
    expect(forged.error).toBe('invalid_grant');
  });

  it('another document agent than the one named is refused', async () => {
    const named = agentAt('/agents/first.json');
    const other = agentAt('/agents/second.json');
    const subject = await accessToken(await issue(await storefrontToken(), { may_act: named }));
    const problem = await refusal(await delegate(subject, await key.assert(other, ISSUER), asJwt));
    expect(problem.error_description).toMatch(/may_act does not name/);
  });

  it('cannot act in a space that does not allow its domain, even named there', async () => {
    // OTHER_SPACE allows 127.0.0.1 only: a localhost agent named there is refused at once.
    const agent = agentAt('/agents/foreign.json');
    const other = delegationParties(() => service, OTHER_SPACE);
    const response = await other.issue(await storefrontToken(OTHER_SPACE), { may_act: agent });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject(NOT_ACTIVE);
  });

  it('loses its delegated tokens when the space stops allowing its domain', async () => {
    const host = '127.0.0.1';
    const agent = agentAt('/agents/removed.json', host);
    const other = delegationParties(() => service, OTHER_SPACE);
    const storefront = await other.credential(SCOPES);
    const subject = await accessToken(
      await other.issue(await other.privateToken(storefront, SCOPES), { may_act: agent }),
    );
    const delegated = await accessToken(
      await other.delegate(subject, await key.assert(agent, ISSUER), asJwt),
    );
    const introspect = async () =>
      (await (
        await service.post('/v1/introspect', { ...storefront, token: delegated })
      ).json()) as { active: boolean };
    expect((await introspect()).active).toBe(true);
    const removed = await admin(
      'DELETE',
      `/v1/metadata-client-domains/${host}`,
      undefined,
      OTHER_SPACE,
    );
    expect(removed.status).toBe(204);
    await expect.poll(async () => (await introspect()).active, { timeout: 10_000 }).toBe(false);
  });
});
