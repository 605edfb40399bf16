/**
 * Who may do what, in one place: the HTTP edge, the deciders and the command handlers ask here,
 * so a rule is never written twice and can be read whole.
 */

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
 * A token is its space's business alone: a public token is bought only for the private token's
 * own space, and a client introspects or revokes only tokens of its own space (anything else is
 * answered as if the token did not exist).
 */
export function tokenInSpace(token: { readonly spaceId: string }, spaceId: string): boolean {
  return token.spaceId === spaceId;
}

/**
 * A token bought with another (RFC 8693 exchange) is for the paying token's audience: the only
 * target (audience or RFC 8707 resource) a client may name for it is that one.
 */
export function mayTarget(paying: { readonly aud: string }, target: string): boolean {
  return target === paying.aud;
}

/** A client's own budget may not exceed its space's ceiling (SPACE_RATE_LIMIT_PER_MINUTE). */
export function withinSpaceCeiling(perMinute: number | null | undefined, ceiling: number) {
  return perMinute === null || perMinute === undefined || perMinute <= ceiling;
}

/**
 * Scopes are all-of: what `held` lacks of `required` (empty when it holds them all). A token's
 * granted scopes against a route's, a request against what its credential allows.
 */
export function missingScopes(held: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !held.includes(scope));
}
