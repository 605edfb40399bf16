/** The scopes credentials and tokens may carry, within the operator's catalog. */
import {
  allDefaultScopes,
  allScopes,
  audienceScopes,
  defaultScopes,
  delegatedScopes,
  publicScopes,
  type ScopeCatalog,
} from '../scope-catalog.js';
import { missingScopes, scopesStillAllowed } from '#verifier/token-rules.js';

// All-of, and a narrowed credential's hold on its tokens: the kit's rules (packages/verifier).
export { missingScopes } from '#verifier/token-rules.js';

/** A scope request refused: the first scope that may not be granted, and why. */
export interface ScopeRefusal {
  readonly scope: string;
  /** Which rule refused: catalog, credential, public, paying token or delegation. */
  readonly reason: 'unknown' | 'not_allowed' | 'not_public' | 'not_held' | 'delegated_only';
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

/** Scopes some audience's catalog lists; none named: every audience's defaults. */
export function credentialScopes(
  catalog: ScopeCatalog,
  requested: readonly string[] | undefined,
): ScopeGrant {
  if (requested === undefined) return { ok: true, scopes: allDefaultScopes(catalog) };
  return firstOutside(requested, allScopes(catalog), 'unknown') ?? { ok: true, scopes: requested };
}

/** A credential's scopes, or every default for one recorded before scopes (null). */
export function allowedScopes(
  catalog: ScopeCatalog,
  credential: { readonly scopes: readonly string[] | null },
): readonly string[] {
  return credential.scopes ?? allDefaultScopes(catalog);
}

/**
 * A private token's scopes: within catalog and credential, never a delegated-only one (it would
 * buy, with no customer, budget or cap, what only a customer's consent grants); none asked:
 * defaults.
 */
export function privateTokenScopes(
  catalog: ScopeCatalog,
  audience: string,
  allowed: readonly string[],
  requested: readonly string[] | undefined,
): ScopeGrant {
  const reserved = delegatedScopes(catalog, audience);
  const own = audienceScopes(catalog, audience).filter((s) => !reserved.includes(s));
  if (requested === undefined) {
    const scopes = defaultScopes(catalog, audience).filter((s) => allowed.includes(s));
    return { ok: true, scopes: scopes.filter((s) => own.includes(s)) };
  }
  return (
    firstOutside(requested, audienceScopes(catalog, audience), 'unknown') ??
    firstOutside(requested, allowed, 'not_allowed') ??
    firstOutside(requested, own, 'delegated_only') ?? { ok: true, scopes: requested }
  );
}

/**
 * A public token's scopes: within the paying token's, the credential's and public ones; a
 * delegated-only scope (no private token holds one) within the credential's alone, kept for may_act.
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
    firstOutside(
      requested,
      [...paying.scopes, ...delegatedScopes(catalog, audience)],
      'not_held',
    ) ??
    firstOutside(requested, paying.allowed, 'not_allowed') ?? { ok: true, scopes: requested }
  );
}

/** A token stands while credential and catalog still allow each scope (null catalog: unchecked). */
export function tokenScopesStillAllowed(
  token: { readonly scopes: readonly string[]; readonly audience: string },
  allowed: readonly string[],
  catalog: ScopeCatalog | null,
): boolean {
  if (!scopesStillAllowed(token.scopes, allowed)) return false;
  return (
    catalog === null ||
    missingScopes(audienceScopes(catalog, token.audience), token.scopes).length === 0
  );
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
    case 'delegated_only':
      return `${scope} is granted only to an agent's delegated token: never a private token; a public one keeps it for the agent its may_act names`;
  }
}
