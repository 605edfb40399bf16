/**
 * Who may do what, in one place: the HTTP edge, the deciders and the command handlers ask here,
 * so a rule is never written twice and can be read whole.
 */
import {
  allDefaultScopes,
  allScopes,
  audienceScopes,
  defaultScopes,
  publicScopes,
  type ScopeCatalog,
} from './scope-catalog.js';

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

/** A scope request refused: the first scope that may not be granted, and why. */
export interface ScopeRefusal {
  readonly scope: string;
  /** `unknown`: no catalog lists it (for this audience); `not_allowed`: the credential does not
   * hold it; `not_public`: a public token may not carry it; `not_held`: the token that pays for
   * this one does not carry it. */
  readonly reason: 'unknown' | 'not_allowed' | 'not_public' | 'not_held';
}

/** Scopes granted, or the refusal of the first that may not be. */
export type ScopeGrant =
  | { readonly ok: true; readonly scopes: readonly string[] }
  | ({ readonly ok: false } & ScopeRefusal);

/** The first of `requested` outside `within`, refused for `reason`; undefined when none is. */
function firstOutside(
  requested: readonly string[],
  within: readonly string[],
  reason: ScopeRefusal['reason'],
): ScopeGrant | undefined {
  const [scope] = missingScopes(within, requested);
  return scope === undefined ? undefined : { ok: false, scope, reason };
}

/**
 * What a credential may be given: scopes some audience's catalog lists. None named: every
 * audience's defaults.
 */
export function credentialScopes(
  catalog: ScopeCatalog,
  requested: readonly string[] | undefined,
): ScopeGrant {
  if (requested === undefined) return { ok: true, scopes: allDefaultScopes(catalog) };
  return firstOutside(requested, allScopes(catalog), 'unknown') ?? { ok: true, scopes: requested };
}

/**
 * What a credential allows now: its own scopes, or, for one recorded before scopes existed
 * (null), every audience's defaults.
 */
export function allowedScopes(
  catalog: ScopeCatalog,
  credential: { readonly scopes: readonly string[] | null },
): readonly string[] {
  return credential.scopes ?? allDefaultScopes(catalog);
}

/**
 * A private token's scopes (client_credentials): within the audience's catalog and what the
 * credential allows. None requested: the audience's defaults the credential allows.
 */
export function privateTokenScopes(
  catalog: ScopeCatalog,
  audience: string,
  allowed: readonly string[],
  requested: readonly string[] | undefined,
): ScopeGrant {
  if (requested === undefined) {
    return {
      ok: true,
      scopes: defaultScopes(catalog, audience).filter((s) => allowed.includes(s)),
    };
  }
  return (
    firstOutside(requested, audienceScopes(catalog, audience), 'unknown') ??
    firstOutside(requested, allowed, 'not_allowed') ?? { ok: true, scopes: requested }
  );
}

/**
 * A public token's scopes (bought at /v1/issue or by token exchange): within the paying token's
 * scopes, what its credential still allows, and the audience's public scopes; never more than the
 * token that pays for it. None requested: the audience's public defaults the paying token holds.
 */
export function publicTokenScopes(
  catalog: ScopeCatalog,
  audience: string,
  paying: { readonly scopes: readonly string[]; readonly allowed: readonly string[] },
  requested: readonly string[] | undefined,
): ScopeGrant {
  const open = publicScopes(catalog, audience);
  if (requested === undefined) {
    const scopes = defaultScopes(catalog, audience).filter(
      (s) => open.includes(s) && paying.scopes.includes(s) && paying.allowed.includes(s),
    );
    return { ok: true, scopes };
  }
  return (
    firstOutside(requested, audienceScopes(catalog, audience), 'unknown') ??
    firstOutside(requested, open, 'not_public') ??
    firstOutside(requested, paying.scopes, 'not_held') ??
    firstOutside(requested, paying.allowed, 'not_allowed') ?? { ok: true, scopes: requested }
  );
}

/**
 * A token still stands on its credential's scopes: one carrying a scope its credential no longer
 * holds (narrowed since) is refused, as a revoked one is.
 */
export function tokenScopesStillAllowed(
  tokenScopes: readonly string[],
  allowed: readonly string[],
): boolean {
  return missingScopes(allowed, tokenScopes).length === 0;
}

/** What a scope refusal says to the client (RFC 6749 §5.2 `error_description`). */
export function describeScopeRefusal(refusal: ScopeRefusal, audience?: string): string {
  const scope = `scope "${refusal.scope}"`;
  switch (refusal.reason) {
    case 'unknown':
      return audience === undefined
        ? `${scope} is not in the scope catalog`
        : `${scope} is not in the scope catalog of audience "${audience}"`;
    case 'not_allowed':
      return `${scope} is not allowed to this client`;
    case 'not_public':
      return `${scope} may not be carried by a public token`;
    case 'not_held':
      return `${scope} is not held by the token this one is bought with`;
  }
}
