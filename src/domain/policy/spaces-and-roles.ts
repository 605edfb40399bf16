/** Who may act where: a user's spaces and role, a credential's space, a client's budget. */

/** `auditor` reads, `admin` also changes: who reviews the trail cannot change what they review. */
export type LoginRole = 'admin' | 'auditor';

/** A dashboard user acts in a space only when their login token lists it. */
export function userHasSpace(user: { readonly spaces: readonly string[] }, spaceId: string) {
  return user.spaces.includes(spaceId);
}

/** Segregation of duties: every role reads, only an admin changes. */
export function roleMayChange(role: string): boolean {
  return role === 'admin';
}

/** No claim: `fallback` (LOGIN_DEFAULT_ROLE); an unknown value gets auditor, the least. */
export function roleOfClaim(claim: unknown, fallback: LoginRole): LoginRole {
  if (claim === undefined) return fallback;
  return claim === 'admin' ? 'admin' : 'auditor';
}

/** A space's things are its alone: asked from another, absent; null: the operator's. */
export function ownedBySpace(thing: { readonly spaceId: string | null }, spaceId: string) {
  return thing.spaceId === spaceId;
}

/** A credential exists for a space only in its own ({@link ownedBySpace}). */
export function credentialInSpace<C extends { readonly spaceId: string }>(
  credential: C | undefined,
  spaceId: string,
): C | undefined {
  return credential && ownedBySpace(credential, spaceId) ? credential : undefined;
}

/** A client's own budget may not exceed its space's ceiling (SPACE_RATE_LIMIT_PER_MINUTE). */
export function withinSpaceCeiling(perMinute: number | null | undefined, ceiling: number) {
  return perMinute === null || perMinute === undefined || perMinute <= ceiling;
}

/** How many of a costly thing a space has (removed ones not counted) and its setting's limit. */
export type SpaceCount = { readonly count: number; readonly limit: number } | undefined;

/**
 * Room for one more: SINK_MAX_PER_SPACE (each sink a loop and shared log reads),
 * TRUSTED_ISSUER_MAX_PER_SPACE and METADATA_DOMAIN_MAX_PER_SPACE (each costs outbound fetches).
 */
export const roomForOne = (space: SpaceCount) => !space || space.count + 1 <= space.limit;

/**
 * RFC 8936: a polled signal stream is read by whoever holds its secret (its receiver), nobody
 * else: not another stream's, not a pushed one's, not a deleted one's.
 */
export function mayPollStream(
  stream: { readonly polled: boolean; readonly deleted?: boolean } | undefined,
  secretMatches: boolean,
): boolean {
  return stream !== undefined && stream.polled && stream.deleted !== true && secretMatches;
}
