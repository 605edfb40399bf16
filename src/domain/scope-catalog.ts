import { z } from 'zod';
import { SCOPE_MAX_LENGTH, SCOPE_TOKEN } from '#verifier/scope.js';

/** One scope of an audience's catalog: what the operator says it allows, and to whom. */
export const catalogScopeSchema = z
  .object({
    description: z.string().min(1).max(500),
    /** Whether a public token (a browser's, an app's) may carry it. */
    public: z.boolean().default(false),
    /** Granted when a request names no scope, and allowed to a credential created without any. */
    default: z.boolean().default(false),
    /** Granted only to a delegated (public) token, so such a scope must be `public` too. */
    delegated: z.boolean().optional(),
  })
  .strict();

const scopeName = z
  .string()
  .max(SCOPE_MAX_LENGTH)
  .regex(SCOPE_TOKEN, 'a scope is printable ASCII without space, " or \\ (RFC 6749 §3.3)');

/** SCOPE_CATALOG: each audience's scopes; an audience not in it has none. */
export const scopeCatalogSchema = z.record(
  z.string().min(1).max(512),
  z.record(scopeName, catalogScopeSchema),
);

/** A parsed catalog: audience → scope → what it is. */
export type ScopeCatalog = z.output<typeof scopeCatalogSchema>;

/** The scopes an audience's catalog lists (none for an audience it does not list). */
export function audienceScopes(catalog: ScopeCatalog, audience: string): string[] {
  return Object.keys(catalog[audience] ?? {});
}

/** The scopes of an audience that a public token may carry. */
export function publicScopes(catalog: ScopeCatalog, audience: string): string[] {
  return Object.entries(catalog[audience] ?? {})
    .filter(([, scope]) => scope.public)
    .map(([name]) => name);
}

/** The scopes of an audience granted only through delegation. */
export function delegatedScopes(catalog: ScopeCatalog, audience: string): string[] {
  return Object.entries(catalog[audience] ?? {})
    .filter(([, scope]) => scope.delegated === true)
    .map(([name]) => name);
}

/** The scopes of an audience granted when a request names none. */
export function defaultScopes(catalog: ScopeCatalog, audience: string): string[] {
  return Object.entries(catalog[audience] ?? {})
    .filter(([, scope]) => scope.default)
    .map(([name]) => name);
}

/** Every scope any audience lists, once each, sorted (discovery's `scopes_supported`). */
export function allScopes(catalog: ScopeCatalog): string[] {
  return [
    ...new Set(Object.keys(catalog).flatMap((audience) => audienceScopes(catalog, audience))),
  ].sort();
}

// Asked for on every token of a credential created without scopes; a catalog is a value read once.
const defaultsOf = new WeakMap<ScopeCatalog, readonly string[]>();

/** Every audience's default scopes together: what a credential created without scopes allows. */
export function allDefaultScopes(catalog: ScopeCatalog): readonly string[] {
  let scopes = defaultsOf.get(catalog);
  if (scopes === undefined) {
    scopes = Object.freeze(
      [
        ...new Set(Object.keys(catalog).flatMap((audience) => defaultScopes(catalog, audience))),
      ].sort(),
    );
    defaultsOf.set(catalog, scopes);
  }
  return scopes;
}

/**
 * The catalog with the service's own audience for Shared Signals stream management and its one
 * scope (neither public nor default: an admin grants it, since a stream carries every signal of
 * its space). Not the operator's to declare: SCOPE_CATALOG names Storefront audiences only.
 */
export function withStreamsScope(
  catalog: ScopeCatalog,
  streams: { readonly audience: string; readonly scope: string },
): ScopeCatalog {
  const scope = catalogScopeSchema.parse({
    description:
      "Manage this client's Shared Signals streams (OpenID SSF 1.0 §8): its tokens name the stream management audience",
  });
  return { ...catalog, [streams.audience]: { [streams.scope]: scope } };
}
