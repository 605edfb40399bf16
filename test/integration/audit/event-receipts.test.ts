import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey, type AuditKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { delegationParties, type Credential } from '../../support/delegation.js';
import { startLocalDocuments } from '../../support/local-documents.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { readTlogProof } from '../../support/tlog-proof-reader.js';
import { adminCall, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 67, item 2: a receipt (C2SP tlog-proof) with every token, consent and revocation, to
 * whoever holds it, and to an auditor for anything in the space; each read by a checker written
 * from the specs (test/support/tlog-proof-reader.ts), and refused to anyone else.
 */
const SPACE = 'space-receipts';
const OTHER = 'space-receipts-other';
const SCOPES = ['products:read', 'cart:write'];
const CALLBACK = 'http://127.0.0.1:51234/callback';
const clock = { pinned: undefined as number | undefined, now: () => clock.pinned ?? Date.now() };
let service: TestService;
let auditKey: AuditKey;
let policy: string;
let agent: string;
let shop: Credential;
const parties = delegationParties(() => service, SPACE);
let published = 0;

/** The projector's work, then the API's clock past the head's window: the head is published. */
async function publish() {
  while ((await sealLog(service.database.db, 500)) > 0);
  await signTreeHeads(service.database.db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
  );
  published += 1;
  clock.pinned =
    Date.now() + 10 * published * service.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000;
}

const get = (path: string, bearer: string, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${bearer}`, ...headers },
  });

/** A receipt's entry, read from the specs alone; undefined when it does not verify. */
async function entryOf(response: Response) {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  return readTlogProof(await response.text(), policy);
}

/** A customer's consent to the agent, accepted by the storefront (`shopToken`); its id. */
async function consentOf(shopToken: string): Promise<string> {
  const verifier = oauth.generateRandomCodeVerifier();
  const parameters = {
    response_type: 'code',
    client_id: agent,
    redirect_uri: CALLBACK,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: SCOPES.join(' '),
    state: oauth.generateRandomState(),
  };
  const asked = await fetch(
    `${service.baseUrl}/spaces/${SPACE}/authorize?${new URLSearchParams(parameters)}`,
    { redirect: 'manual' },
  );
  const location = new URL(asked.headers.get('location') ?? '');
  const requestId = location.searchParams.get('authorization_request')!;
  const accepted = await fetch(`${service.baseUrl}/v1/authorization-requests/${requestId}/accept`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shopToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ customer_id: 'c-receipts', segment_id: 'vip' }),
  });
  expect(accepted.status, await accepted.clone().text()).toBe(200);
  return requestId;
}

beforeAll(async () => {
  service = await startTestService(
    { SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG), FAILED_AUTH_LIMIT_PER_MINUTE: '1000' },
    undefined,
    undefined,
    { clock },
  );
  auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  const docs = await startLocalDocuments();
  agent = `https://localhost:${docs.port}/agents/receipts.json`;
  docs.serve('/agents/receipts.json', {
    body: {
      client_id: agent,
      client_name: 'Shopping agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  const allowed = await adminCall(service, SPACE, 'POST', '/v1/metadata-client-domains', {
    domain: 'localhost',
    scopes: SCOPES,
  });
  expect(allowed.status).toBe(201);
  const app = await adminCall(service, SPACE, 'POST', '/v1/authorization-app', {
    interaction_url: 'https://shop.example/consent',
  });
  expect(app.status).toBe(200);
  shop = await parties.credential(SCOPES);
  policy = await (await fetch(`${service.baseUrl}/audit/log/policy`)).text();
}, 120_000);

describe('receipts of revocations, consents, and any event for an auditor (issue 67)', () => {
  it("a token's revocation: to the private token that bought it, and to its client's next private token", async () => {
    const first = await parties.privateToken(shop, SCOPES);
    const bought = (await (
      await service.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 'vip' },
        { authorization: `Bearer ${first}`, 'x-service-space-id': SPACE },
      )
    ).json()) as { token: string };
    const publicJti = String(decodeJwt(bought.token).jti);
    const firstJti = String(decodeJwt(first).jti);
    await publish();
    // Not revoked yet: no revocation receipt.
    const none = await get(`/v1/token/receipt?jti=${publicJti}&event=revoked`, first);
    expect(none.status).toBe(404);
    expect(await none.text()).toContain('no revocation');
    expect((await service.post('/v1/revoke', { ...shop, token: bought.token })).status).toBe(200);
    await publish();
    // The buyer holds its public token's revocation receipt.
    const ofPublic = await entryOf(
      await get(`/v1/token/receipt?jti=${publicJti}&event=revoked`, first),
    );
    expect(ofPublic).toMatchObject({
      event_type: 'token-revoked',
      stream_id: `token-${publicJti}`,
    });
    // Its issuance receipt is still the issuance.
    expect(await entryOf(await get(`/v1/token/receipt?jti=${publicJti}`, first))).toMatchObject({
      event_type: 'public-token-issued',
    });
    // The private token revoked, its client's next one holds that revocation's receipt.
    expect((await service.post('/v1/revoke', { ...shop, token: first })).status).toBe(200);
    const next = await parties.privateToken(shop, SCOPES);
    await publish();
    expect(
      await entryOf(await get(`/v1/token/receipt?jti=${firstJti}&event=revoked`, next)),
    ).toMatchObject({ event_type: 'token-revoked', stream_id: `token-${firstJti}` });
    // Another client of the space gets neither, nor does `next` get the public token's (not its buy).
    const stranger = await parties.privateToken(await parties.credential(SCOPES), SCOPES);
    for (const [path, bearer] of [
      [`/v1/token/receipt?jti=${firstJti}&event=revoked`, stranger],
      [`/v1/token/receipt?jti=${publicJti}&event=revoked`, stranger],
      [`/v1/token/receipt?jti=${publicJti}&event=revoked`, next],
      [`/v1/token/receipt?jti=${firstJti}`, stranger],
    ] as const) {
      expect((await get(path, bearer)).status, path).toBe(404);
    }
    expect((await get('/v1/token/receipt?event=withdrawn', next)).status).toBe(400);
  });

  it('a consent: given and withdrawn, to the storefront of its space, not to the agent or another space', async () => {
    const shopToken = await parties.privateToken(shop, SCOPES);
    const consentId = await consentOf(shopToken);
    await publish();
    const given = await entryOf(await get(`/v1/consents/${consentId}/receipt`, shopToken));
    expect(given).toMatchObject({
      event_type: 'authorization-accepted',
      stream_id: `authorization-${consentId}`,
    });
    const notYet = await get(`/v1/consents/${consentId}/receipt?event=revoked`, shopToken);
    expect(notYet.status).toBe(404);
    expect(await notYet.text()).toContain('not been withdrawn');
    const withdrawn = await fetch(`${service.baseUrl}/v1/consents/${consentId}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shopToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(withdrawn.status, await withdrawn.clone().text()).toBe(200);
    await publish();
    expect(
      await entryOf(await get(`/v1/consents/${consentId}/receipt?event=revoked`, shopToken)),
    ).toMatchObject({ event_type: 'authorization-consent-revoked' });
    // Another storefront client of the space did not accept it: its request's metadata is not theirs.
    const otherShop = await parties.privateToken(await parties.credential(SCOPES), SCOPES);
    const notTheirs = await get(`/v1/consents/${consentId}/receipt`, otherShop);
    expect(notTheirs.status).toBe(404);
    expect(await notTheirs.text()).toContain('accepted no such consent');
    // Another space's storefront: no such consent there.
    const otherParties = delegationParties(() => service, OTHER);
    const otherSpaceShop = await otherParties.privateToken(
      await otherParties.credential(SCOPES),
      SCOPES,
    );
    expect((await get(`/v1/consents/${consentId}/receipt`, otherSpaceShop)).status).toBe(404);
    expect((await get('/v1/consents/not-a-consent/receipt', shopToken)).status).toBe(400);
  });

  it("any event of the space for its auditor, recorded as an audit read; another space's is not found", async () => {
    const login = await service.loginToken([SPACE, OTHER]);
    const asAuditor = (space: string) => ({ 'x-service-space-id': space });
    const { rows } = await service.database.pool.query<{ event_id: string }>(
      `SELECT event_id FROM events WHERE space_id = $1 AND event_type = 'credential-created' LIMIT 1`,
      [SPACE],
    );
    const eventId = rows[0]!.event_id;
    const receipt = await entryOf(
      await get(`/v1/audit/receipt?event_id=${eventId}`, login, asAuditor(SPACE)),
    );
    expect(receipt).toMatchObject({ event_type: 'credential-created', event_id: eventId });
    const elsewhere = await get(`/v1/audit/receipt?event_id=${eventId}`, login, asAuditor(OTHER));
    expect(elsewhere.status).toBe(404);
    expect((await get('/v1/audit/receipt', login, asAuditor(SPACE))).status).toBe(400);
    const reads = await service.database.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM events WHERE space_id = $1 AND event_type = 'audit-log-read'
         AND data->>'kind' = 'inclusion-proof' AND data->'query'->>'format' = 'tlog-proof'`,
      [SPACE],
    );
    expect(Number(reads.rows[0]!.n)).toBeGreaterThanOrEqual(1);
  });
});
