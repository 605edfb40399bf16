import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/wait.js';
import { listedStatus, projectStatusEntries, statusOf } from '../../support/status-list.js';
import {
  adminCall,
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-status-list';

let service: TestService;
beforeAll(async () => {
  // Public tokens live 2 s, so one can expire within the test.
  service = await startTestService({ PUBLIC_TOKEN_TTL_SECONDS: '2' });
});

const publicToken = async (privateToken: string) => {
  const response = await service.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 'vip' },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
};

const introspected = async (credential: object, token: string) =>
  (
    (await (await service.post('/v1/introspect', { ...credential, token })).json()) as {
      active: boolean;
    }
  ).active;

const projected = () => projectStatusEntries(service);
const listed = (token: string) => listedStatus(service, token);

describe('the Token Status List (issue 65)', () => {
  it('every token names its own entry of its space list, placed at random in a padded list', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const privateToken = await privateTokenVia(service, credential);
    const tokens = [privateToken];
    for (let i = 0; i < 20; i++) tokens.push(await publicToken(privateToken));
    const statuses = tokens.map(statusOf);
    const places = new Set(statuses.map(({ uri, idx }) => `${uri}#${idx}`));
    expect(places.size).toBe(tokens.length);
    for (const { uri, idx } of statuses) {
      expect(uri).toMatch(
        /^http:\/\/token-authority\.test\/spaces\/space-status-list\/statuslists\/[A-Za-z0-9_-]{22}$/,
      );
      expect(idx).toBeGreaterThanOrEqual(0);
      expect(idx).toBeLessThan(1 << 16);
    }
    // Random placement: the first tokens of a list are not at its first indexes.
    expect(statuses.filter(({ idx }) => idx < 21).length).toBeLessThan(5);
    await projected();
    const jwt = await (
      await fetch(`${service.baseUrl}${new URL(statuses[0]!.uri).pathname}`)
    ).text();
    // Padded: the list's size says nothing of how many tokens it holds.
    expect(getListFromStatusListJWT(jwt).statusList.length).toBe(1 << 16);
  });

  it('agrees with introspection for live, revoked, expired and voided-by-credential tokens', async () => {
    const storefront = await createCredentialVia(service, SPACE, 'storefront');
    const other = await createCredentialVia(service, SPACE, 'other');
    const live = await privateTokenVia(service, storefront);
    const revoked = await privateTokenVia(service, storefront);
    const expiring = await publicToken(live);
    const doomed = await privateTokenVia(service, other);
    const boughtByDoomed = await publicToken(doomed);
    await projected();
    expect(await listed(revoked)).toBe(0);

    expect((await service.post('/v1/revoke', { ...storefront, token: revoked })).status).toBe(200);
    const revokedCredential = await adminCall(
      service,
      SPACE,
      'DELETE',
      `/v1/credential/${other.client_id}`,
    );
    expect(revokedCredential.status).toBe(200);
    // Past the public token's 2 s; the list built before the revocations is served for 5 s (and
    // while its next one is built), then the next one holds them.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    // The projector past the revocations' events: lists are served only within 5 s of the log.
    await projected();
    await waitUntil(
      () => listed(revoked),
      (status) => status === 1,
      { timeoutMs: 10_000, intervalMs: 250 },
    );

    expect(await introspected(storefront, live)).toBe(true);
    expect(await listed(live)).toBe(0);
    expect(await introspected(storefront, revoked)).toBe(false);
    expect(await listed(revoked)).toBe(1);
    expect(await introspected(storefront, expiring)).toBe(false);
    // Expiry is the token's own claim (§7.1): a verifier reads `exp` first and refuses it there;
    // the list does not mark it, so it says nothing of when its tokens were issued.
    const jwks = createLocalJWKSet(
      (await (await fetch(`${service.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet,
    );
    await expect(jwtVerify(expiring, jwks)).rejects.toThrow(/"exp" claim/);
    expect(await listed(expiring)).toBe(0);
    expect(await introspected(storefront, doomed)).toBe(false);
    expect(await listed(doomed)).toBe(1);
    expect(await listed(boughtByDoomed)).toBe(1);
  });

  it('answers 404 for a list the space does not have, another space included, and 400 for a bad id', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const token = await privateTokenVia(service, credential, AUDIENCE);
    await projected();
    const { uri } = statusOf(token);
    const list = uri.slice(uri.lastIndexOf('/') + 1);
    const unknown = await fetch(`${service.baseUrl}/spaces/${SPACE}/statuslists/${'A'.repeat(22)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('no such status list');
    const foreign = await fetch(`${service.baseUrl}/spaces/another-space/statuslists/${list}`);
    expect(foreign.status).toBe(404);
    const current = await fetch(`${service.baseUrl}${new URL(uri).pathname}`);
    expect(current.status).toBe(200);
    expect(current.headers.get('access-control-allow-origin')).toBe('*');
    // A time before the list had any version: 404 (§8.4), never the current list.
    const historical = await fetch(`${service.baseUrl}${new URL(uri).pathname}?time=1686925000`);
    expect(historical.status).toBe(404);
    expect(await historical.text()).toContain('no version of this list was valid at that time');
    const notATime = await fetch(`${service.baseUrl}${new URL(uri).pathname}?time=yesterday`);
    expect(notATime.status).toBe(400);
    expect(await notATime.text()).toContain('unix timestamp');
    const bad = await fetch(`${service.baseUrl}/spaces/${SPACE}/statuslists/not-a-list`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('22 base64url');
  });

  it("signs a list with its tokens' ring: the shared one before a space's own keys, its own after", async () => {
    const space = 'space-status-own';
    const credential = await createCredentialVia(service, space);
    const before = await privateTokenVia(service, credential);
    const enabled = await adminCall(service, space, 'POST', '/v1/space/signing-keys');
    expect(enabled.status).toBeLessThan(300);
    const after = await privateTokenVia(service, credential);
    expect(statusOf(after).uri).not.toBe(statusOf(before).uri);
    await projected();
    // Each list verifies with its tokens' keys and names their issuer (listedStatus checks both).
    expect(await listedStatus(service, before)).toBe(0);
    expect(await listedStatus(service, after, `/spaces/${space}/.well-known/jwks.json`)).toBe(0);
  });

  it('logs every version before serving it, and answers ?time= with the version valid then (issue 65, item 4)', async () => {
    const space = 'space-status-history';
    const credential = await createCredentialVia(service, space);
    const token = await privateTokenVia(service, credential);
    await projected();
    const { uri, idx } = statusOf(token);
    const path = new URL(uri).pathname;
    const served = async (query = '') => {
      const response = await fetch(`${service.baseUrl}${path}${query}`);
      expect(response.status).toBe(200);
      return response.text();
    };
    const logged = async () =>
      (
        await sql<{ jwt: string }>`SELECT data->>'jwt' AS jwt FROM events
          WHERE space_id = ${space} AND event_type = 'status-list-published'
          ORDER BY stream_position`.execute(service.database.db)
      ).rows.map((row) => row.jwt);
    const before = await served();
    expect(await logged()).toEqual([before]);
    // Rebuilt after 5 s saying the same: the logged version is served again, nothing published.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    expect(await served()).toBe(before);
    expect(await logged()).toEqual([before]);

    expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);
    await projected();
    await waitUntil(
      () => listedStatus(service, token),
      (status) => status === 1,
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    const after = await served();
    expect(await logged()).toEqual([before, after]);

    // What a verifier nobody here wrote reads of each time: jose checks the signature and that
    // the time asked is within the version's iat..exp (§8.4), @sd-jwt/jwt-status-list the bit.
    const jwks = createLocalJWKSet(
      (await (await fetch(`${service.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet,
    );
    const statusAt = async (time: number) => {
      const jwt = await served(`?time=${time}`);
      const { payload } = await jwtVerify(jwt, jwks, {
        typ: 'statuslist+jwt',
        subject: uri,
        currentDate: new Date(time * 1000),
      });
      expect(payload.iat).toBeLessThanOrEqual(time);
      expect(payload.exp).toBeGreaterThan(time);
      return { jwt, status: getListFromStatusListJWT(jwt).getStatus(idx) };
    };
    const beforeAt = (await jwtVerify(before, jwks)).payload.iat!;
    const afterAt = (await jwtVerify(after, jwks)).payload.iat!;
    expect(await statusAt(beforeAt)).toEqual({ jwt: before, status: 0 });
    expect(await statusAt(afterAt)).toEqual({ jwt: after, status: 1 });
    // Past the last version's end, no version was valid: 404, not the last one.
    const beyond = await fetch(`${service.baseUrl}${path}?time=${afterAt + 121}`);
    expect(beyond.status).toBe(404);
  });

  it('stops serving a list an hour and more after its last token expired: 404, nothing more logged, its past still answered', async () => {
    let offset = 0;
    const later = await startTestService(
      { PRIVATE_TOKEN_TTL_SECONDS: '60' },
      undefined,
      { database: service.database, dataDir: service.dataDir },
      { clock: { now: () => Date.now() + offset } },
    );
    const space = 'space-status-ended';
    const credential = await createCredentialVia(later, space);
    const token = await privateTokenVia(later, credential);
    await projected();
    const { uri } = statusOf(token);
    const path = new URL(uri).pathname;
    const first = await fetch(`${later.baseUrl}${path}`);
    expect(first.status).toBe(200);
    const { iat } = decodeJwt(await first.text());
    const published = async () =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM events
          WHERE space_id = ${space} AND event_type = 'status-list-published'`.execute(
          service.database.db,
        )
      ).rows[0]!.n;
    expect(await published()).toBe(1);
    // The token's 60 s, then its list's hour and five minutes more (the projector keeping up).
    offset = (60 + 3600 + 301) * 1000;
    await projected();
    // Its copy is served while fresh (5 s), then the next build finds it ended.
    const ended = await waitUntil(
      async () => {
        await projected();
        return fetch(`${later.baseUrl}${path}`);
      },
      (response) => response.status === 404,
      { timeoutMs: 15_000, intervalMs: 500 },
    );
    expect(await ended.text()).toContain('every token of this status list has expired');
    expect(await published()).toBe(1);
    // Read again: the same answer, no build (it stays ended in this process).
    expect((await fetch(`${later.baseUrl}${path}`)).status).toBe(404);
    const past = await fetch(`${later.baseUrl}${path}?time=${iat}`);
    expect(past.status).toBe(200);
  });
});
