import { createPrivateKey } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../../packages/verifier/src/verifier.js';
import { signAccessToken, type AccessTokenClaims } from '../../../src/crypto/access-tokens.js';
import { openPrivateKey } from '../../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 63, item 1: after a space switches to its own keys, a shared-ring token is honoured only
 * as the very token the shared ring issued (its signature's digest, kept beside the log), never as
 * one re-signed from an audit entry's claims; and an admin ends the switch-over at once.
 */
const SPACE = 'space-switch-forgery';
let service: TestService;
let storefront: { client_id: string; client_secret: string };
let agent: { client_id: string; client_secret: string };
let privateToken: string;
let publicToken: string;

const admin = async () => ({
  authorization: `Bearer ${await service.loginToken([SPACE])}`,
  'x-service-space-id': SPACE,
});
const issue = (token: string, on = service) =>
  on.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 's-1' },
    { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE },
  );
const active = async (token: string) =>
  (
    (await (await service.post('/v1/introspect', { ...agent, token })).json()) as {
      active: boolean;
    }
  ).active;

/** What an audit entry says of a token: its claims as the issuance builds them, nothing else. */
const AUDITED = [
  ...['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'space_id', 'token_kind', 'scope'],
  ...['cnf', 'customer_id', 'segment_id', 'parent_jti', 'act', 'may_act'],
];
const audited = (token: string) =>
  Object.fromEntries(
    Object.entries(decodeJwt(token)).filter(([claim]) => AUDITED.includes(claim)),
  ) as unknown as AccessTokenClaims;

/** A token signed with the shared ring's key (an attacker holding it). */
async function signedWithSharedKey(claims: AccessTokenClaims): Promise<string> {
  const { rows } = await service.database.pool.query<{ kid: string; private_jwk: unknown }>(
    `SELECT kid, private_jwk FROM signing_keys WHERE space_id IS NULL AND retired_at IS NULL
      ORDER BY activates_at DESC LIMIT 1`,
  );
  const kek = await loadKeyEncryptionKey(undefined, service.dataDir);
  const privateKey = createPrivateKey({
    key: openPrivateKey(kek, rows[0]!.kid, rows[0]!.private_jwk) as never,
    format: 'jwk',
  });
  return signAccessToken({ kid: rows[0]!.kid, privateKey }, claims);
}

beforeAll(async () => {
  service = await startTestService({ SIGNING_KEY_REFRESH_MS: '100' });
  storefront = await createCredentialVia(service, SPACE);
  agent = await createCredentialVia(service, SPACE, 'agent');
  privateToken = await privateTokenVia(service, storefront);
  const bought = await issue(privateToken);
  expect(bought.status).toBe(200);
  publicToken = ((await bought.json()) as { access_token: string }).access_token;
  const enabled = await service.post('/v1/space/signing-keys', undefined, await admin());
  expect(enabled.status).toBe(200);
  // The space's first key names the request that asked: that request's deadline bounds it.
  const { rows } = await service.database.pool.query<{ request_id: string }>(
    `SELECT metadata->>'request_id' AS request_id FROM events
      WHERE space_id = $1 AND event_type = 'signing-key-generated'`,
    [SPACE],
  );
  expect(rows.map((row) => row.request_id)).toEqual([enabled.headers.get('x-request-id')]);
});

describe('a switch-over to a space’s own keys', () => {
  it('honours no shared-ring token re-signed from an audit entry, and the very tokens issued', async () => {
    // The storefront's private token rebuilt from its audit entry: it bought public tokens.
    const rebuilt = await signedWithSharedKey(audited(privateToken));
    expect((await issue(rebuilt)).status).toBe(401);
    // A recorded public token re-signed for another customer, naming an agent in may_act.
    const claims = audited(publicToken) as AccessTokenClaims & Record<string, unknown>;
    const resigned = await signedWithSharedKey({
      ...claims,
      sub: 'c-victim',
      customer_id: 'c-victim',
      may_act: { sub: agent.client_id },
    } as AccessTokenClaims);
    expect(await active(resigned)).toBe(false);
    // Nor does the agent it names exchange it for a token acting for that customer.
    const exchanged = await service.post(
      '/v1/credential/token',
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: resigned,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: await privateTokenVia(service, agent),
        actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
      { 'x-service-space-id': SPACE },
    );
    expect(exchanged.status).toBe(400);
    // The real ones still stand through the transition.
    expect((await issue(privateToken)).status).toBe(200);
    expect(await active(publicToken)).toBe(true);
  });

  it('keeps what only the real token has beside the log, never in it', async () => {
    const { jti } = decodeJwt(privateToken);
    const { rows } = await service.database.pool.query<{ data: unknown }>(
      `SELECT data FROM events WHERE stream_id = $1`,
      [`token-${jti}`],
    );
    const signature = privateToken.split('.')[2]!;
    expect(JSON.stringify(rows)).not.toContain(signature);
    const kept = await service.database.pool.query(
      `SELECT 1 FROM stream_digests WHERE space_id = $1 AND stream_id = $2`,
      [SPACE, `token-${jti}`],
    );
    expect(kept.rowCount).toBe(1);
    // A token of the space's own ring never takes the switch-over path: nothing is kept for it.
    const own = await privateTokenVia(service, storefront);
    const none = await service.database.pool.query(
      `SELECT 1 FROM stream_digests WHERE stream_id = $1`,
      [`token-${decodeJwt(own).jti}`],
    );
    expect(none.rowCount).toBe(0);
  });

  it("is no other space's admin's to end, and ending another space's leaves this one's", async () => {
    const other = 'space-switch-other';
    const stranger = await service.loginToken([other]);
    const refused = await service.post('/v1/space/signing-keys/end-switch-over', undefined, {
      authorization: `Bearer ${stranger}`,
      'x-service-space-id': SPACE,
    });
    expect(refused.status).toBe(403);
    // The other space switches and ends its own switch-over: this space's tokens are untouched.
    const theirs = { authorization: `Bearer ${stranger}`, 'x-service-space-id': other };
    expect((await service.post('/v1/space/signing-keys', undefined, theirs)).status).toBe(200);
    const ended = await service.post('/v1/space/signing-keys/end-switch-over', undefined, theirs);
    expect(ended.status).toBe(200);
    expect((await issue(privateToken)).status).toBe(200);
    expect(await active(publicToken)).toBe(true);
    const { rows } = await service.database.pool.query<{ space_id: string }>(
      'SELECT space_id FROM ended_switch_overs',
    );
    expect(rows).toEqual([{ space_id: other }]);
  });

  it('an admin ends it at once: then no shared-ring token of the space is honoured', async () => {
    // A replica that verified (and remembered) the token before the end.
    const replica = await startSecondInstance(service);
    expect((await issue(privateToken, replica)).status).toBe(200);
    const ended = await service.post('/v1/space/signing-keys/end-switch-over', undefined, {
      ...(await admin()),
    });
    expect(ended.status).toBe(200);
    // Both were verified (and remembered) before: the end reaches them all the same.
    expect((await issue(privateToken)).status).toBe(401);
    expect((await issue(privateToken, replica)).status).toBe(401);
    expect(await active(publicToken)).toBe(false);
    const { rows } = await service.database.pool.query<{ metadata: { request_id: string } }>(
      `SELECT metadata FROM events WHERE space_id = $1 AND event_type = 'space-switch-over-ended'`,
      [SPACE],
    );
    expect(rows).toHaveLength(1);
    // It names the request that asked: that request's deadline bounds its write.
    expect(rows[0]!.metadata.request_id).toBe(ended.headers.get('x-request-id'));
    // Ending it again changes nothing and records nothing more.
    const again = await service.post('/v1/space/signing-keys/end-switch-over', undefined, {
      ...(await admin()),
    });
    expect(again.status).toBe(200);
    const after = await service.database.pool.query(
      `SELECT 1 FROM events WHERE space_id = $1 AND event_type = 'space-switch-over-ended'`,
      [SPACE],
    );
    expect(after.rowCount).toBe(1);
  });

  it("reaches a resource server's kit through the space's revocation list", async () => {
    // Ended above. A resource server's kit as deployed: the service's endpoints at its issuer.
    const kit = (issuer: string) =>
      createVerifier({
        issuer,
        audience: AUDIENCE,
        fetch: (input, init) =>
          fetch(String(input).replace('http://token-authority.test', service.baseUrl), init),
      });
    const bearer = (token: string) => ({
      header: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined),
      method: 'GET',
      url: 'https://storefront.test/orders',
    });
    const now = Math.floor(Date.now() / 1000);
    const forged = await signedWithSharedKey({
      ...audited(publicToken),
      jti: 'forged-after-the-end',
      iat: now,
      exp: now + 600,
    } as AccessTokenClaims);
    const shared = kit('http://token-authority.test');
    await expect(shared.verify(bearer(forged))).rejects.toThrow(/revoked/);
    await expect(shared.verify(bearer(publicToken))).rejects.toThrow(/revoked/);
    // The space's own ring still speaks for it, to a kit of its own issuer.
    const own = await issue(await privateTokenVia(service, storefront));
    const { access_token: ownPublic } = (await own.json()) as { access_token: string };
    const ownKit = kit(`http://token-authority.test/spaces/${SPACE}`);
    await expect(ownKit.verify(bearer(ownPublic))).resolves.toMatchObject({ space_id: SPACE });
  });

  it('is refused, 404, for a space on the shared keys', async () => {
    const other = 'space-switch-none';
    const answer = await service.post('/v1/space/signing-keys/end-switch-over', undefined, {
      authorization: `Bearer ${await service.loginToken([other])}`,
      'x-service-space-id': other,
    });
    expect(answer.status).toBe(404);
  });
});
