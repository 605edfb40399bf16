import { z } from 'zod';
import { missingScopes } from './token-rules.js';
import { SCOPE_MAX_LENGTH, SCOPE_TOKEN, scopeText, scopeWords } from './scope.js';
import { VerifyError, type TokenScheme } from './verify-error.js';

/** A route's required scopes as a resource server declares them: RFC 6749 §3.3 words. */
const requiredScopesSchema = z.array(
  z
    .string()
    .max(SCOPE_MAX_LENGTH)
    .regex(SCOPE_TOKEN, 'a scope is one word of printable ASCII without space, " or \\'),
);

// Each declared list is checked once and used as the copy checked: routes pass the same array
// on every request, and a later change to that array cannot put an unchecked word in a header.
const checked = new WeakMap<readonly string[], readonly string[]>();

/**
 * The scopes a route requires, checked against RFC 6749 §3.3's grammar (a route that names a
 * scope no token can carry, or one that would break the challenge's quoting, is a mistake to
 * report at once). Throws a TypeError naming the offending value.
 */
export function declaredScopes(scopes: readonly string[] | undefined): readonly string[] {
  if (scopes === undefined) return [];
  const known = checked.get(scopes);
  if (known) return known;
  const parsed = requiredScopesSchema.safeParse(scopes);
  if (!parsed.success) {
    throw new TypeError(`requiredScopes: ${parsed.error.issues[0]?.message ?? 'not a scope list'}`);
  }
  const copy = Object.freeze([...new Set(parsed.data)]);
  checked.set(scopes, copy);
  return copy;
}

/**
 * Refuses a verified token that lacks any of `required` (all-of, the policy's rule): 403
 * `insufficient_scope`, its challenge naming every required scope in the scheme the token came
 * with. A token without a `scope` claim holds no scope.
 */
export function requireScopes(
  token: { readonly scope?: string },
  required: readonly string[],
  scheme: TokenScheme,
): void {
  if (required.length === 0) return;
  // The issuer's schema makes `scope` a string; anything else holds nothing (fail closed).
  const held = scopeWords(typeof token.scope === 'string' ? token.scope : undefined);
  const missing = missingScopes(held, required);
  if (missing.length === 0) return;
  throw new VerifyError(
    'insufficient_scope',
    `the token does not grant ${missing.length === 1 ? 'the scope' : 'the scopes'} ${missing.join(' ')}`,
    403,
    { scheme, scope: scopeText(required) },
  );
}
