import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { expect } from 'vitest';
import { catchUp } from '../../src/projections/batches.js';
import { statusListEntriesProjection } from '../../src/projections/status-list-entries.js';
import type { TestService } from './test-service.js';

/** A token's `status.status_list` claim (draft-ietf-oauth-status-list §6.1). */
export const statusOf = (token: string) =>
  (decodeJwt(token).status as { status_list: { idx: number; uri: string } }).status_list;

/** The projector's pass over the status-list entries, as its process would run it. */
export const projectStatusEntries = (service: TestService) =>
  catchUp(service.database.db, statusListEntriesProjection, 1000);

/**
 * What a verifier nobody here wrote reads of a token's status: the list fetched at its `uri` (on
 * the test's address), checked with jose against the issuer's JWKS (`jwksPath`), decoded by
 * @sd-jwt/jwt-status-list.
 */
export async function listedStatus(
  service: TestService,
  token: string,
  jwksPath = '/.well-known/jwks.json',
): Promise<number> {
  const { idx, uri } = statusOf(token);
  const response = await fetch(`${service.baseUrl}${new URL(uri).pathname}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/statuslist+jwt');
  const jwt = await response.text();
  const jwks = (await (await fetch(`${service.baseUrl}${jwksPath}`)).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks), {
    typ: 'statuslist+jwt',
    issuer: decodeJwt(token).iss!,
    subject: uri,
  });
  expect(payload.ttl).toBeGreaterThan(0);
  return getListFromStatusListJWT(jwt).getStatus(idx);
}
