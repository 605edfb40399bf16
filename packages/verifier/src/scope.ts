/**
 * A scope: one word of a token's `scope` (RFC 6749 §3.3: space-delimited, each word printable
 * ASCII without space, `"` or `\`). The words and their text form; what a token may hold is the
 * token service's policy (its src/domain/policy/).
 */

/** One scope-token of RFC 6749 §3.3 (NQCHAR = %x21 / %x23-5B / %x5D-7E). */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The longest scope word we accept: a bound on what a request can make us store and sign. */
export const SCOPE_MAX_LENGTH = 128;

/** The scopes a `scope` value names, once each, in the order given (empty for none). */
export function scopeWords(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [...new Set(text.split(' ').filter((word) => word !== ''))];
}

/** The `scope` text of a set of scopes (RFC 6749 §3.3), sorted so equal sets read the same. */
export function scopeText(scopes: readonly string[]): string {
  return [...scopes].sort().join(' ');
}

/** A scope word that breaks RFC 6749 §3.3's grammar or our length bound, if any. */
export function malformedScope(scopes: readonly string[]): string | undefined {
  return scopes.find((scope) => scope.length > SCOPE_MAX_LENGTH || !SCOPE_TOKEN.test(scope));
}
