/**
 * Who may act where: a dashboard user's spaces and role, a credential's space, a client's budget
 * against its space's ceiling.
 */

/**
 * What a dashboard user may do in their spaces: `auditor` reads (audit trail, monitoring,
 * credentials), `admin` also changes credentials. Segregation of duties: whoever only reviews the
 * trail gets a token that cannot change what it reviews.
 */
export type LoginRole = 'admin' | 'auditor';

/** A dashboard user acts in a space only when their login token lists it. */
export function userHasSpace(user: { readonly spaces: readonly string[] }, spaceId: string) {
  return user.spaces.includes(spaceId);
}

/**
 * Segregation of duties: every role reads (the audit trail, monitoring, credentials); only an
 * admin changes anything. Whoever only reviews the trail cannot change what they review.
 */
export function roleMayChange(role: string): boolean {
  return role === 'admin';
}

/**
 * The role a login token's claim names. No claim: `fallback` (LOGIN_DEFAULT_ROLE, auditor unless
 * an operator whose identity provider knows no roles chooses admin): a token that says nothing is
 * given the least. Any value but the two known ones: auditor, the one that changes nothing.
 */
export function roleOfClaim(claim: unknown, fallback: LoginRole): LoginRole {
  if (claim === undefined) return fallback;
  return claim === 'admin' ? 'admin' : 'auditor';
}

/**
 * What belongs to a space (a credential, an audit sink) is that space's alone: asked for from
 * another, it is not there (never reveal another space's). Null: the operator's, no space's.
 */
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

/**
 * A space may hold at most `limit` audit sinks (SINK_MAX_PER_SPACE), deleted ones not counted:
 * each costs the deliverer a loop and reads of the log that every tenant shares.
 */
export function withinSinkLimit(sinks: number, limit: number) {
  return sinks <= limit;
}
