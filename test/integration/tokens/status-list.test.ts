import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { catchUp } from '../../../src/projections/batches.js';
import { statusListEntriesProjection } from '../../../src/projections/status-list-entries.js';
import {
  adminCall,
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-status-list';
type StatusClaim = { status_list: { idx: number; uri: string } };

let service: TestService;
beforeAll(async () => {
  // Public tokens live 2 s, so one can expire within the test.
  service = await startTestService({ PUBLIC_TOKEN_TTL_SECONDS: '2' });
});

const statusOf = (token: string) => (decodeJwt(token).status as StatusClaim).status_list;

const publicToken = async (privateToken: string) => {
  const response = await service.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 'vip' },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
};

/**
 * What a verifier nobody here wrote reads: the list fetched at the token's `uri` (on this test's
 * address), its signature checked with jose against the JWKS, decoded by @sd-jwt/jwt-status-list.
 */
async function listedStatus(token: string): Promise<number> {
  const { idx, uri } = statusOf(token);
  const response = await fetch(`${service.baseUrl}${new URL(uri).pathname}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/statuslist+jwt');
  const jwt = await response.text();
  const jwks = (await (
    await fetch(`${service.baseUrl}/.well-known/jwks.json`)
  ).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks), {
    typ: 'statuslist+jwt',
    issuer: decodeJwt(token).iss!,
    subject: uri,
  });
  expect(payload.ttl).toBeGreaterThan(0);
  return getListFromStatusListJWT(jwt).getStatus(idx);
}

const introspected = async (credential: object, token: string) =>
  (
    (await (await service.post('/v1/introspect', { ...credential, token })).json()) as {
      active: boolean;
    }
  ).active;

const projected = () => catchUp(service.database.db, statusListEntriesProjection, 1000);

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
    expect(await listedStatus(revoked)).toBe(0);

    expect((await service.post('/v1/revoke', { ...storefront, token: revoked })).status).toBe(200);
    const revokedCredential = await adminCall(
      service,
      SPACE,
      'DELETE',
      `/v1/credential/${other.client_id}`,
    );
    expect(revokedCredential.status).toBe(200);
    // Past the public token's 2 s, and the list built before the revocation (5 s) is gone.
    await new Promise((resolve) => setTimeout(resolve, 5200));

    expect(await introspected(storefront, live)).toBe(true);
    expect(await listedStatus(live)).toBe(0);
    expect(await introspected(storefront, revoked)).toBe(false);
    expect(await listedStatus(revoked)).toBe(1);
    expect(await introspected(storefront, expiring)).toBe(false);
    expect(await listedStatus(expiring)).toBe(1);
    expect(await introspected(storefront, doomed)).toBe(false);
    expect(await listedStatus(doomed)).toBe(1);
    expect(await listedStatus(boughtByDoomed)).toBe(1);
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
    const bad = await fetch(`${service.baseUrl}/spaces/${SPACE}/statuslists/not-a-list`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('22 base64url');
  });
});
