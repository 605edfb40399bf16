import { z } from 'zod';
import { malformedScope, scopeWords } from '#verifier/scope.js';
import { InvalidScopeError } from '../../../errors/errors.js';

/** RFC 6749 §3.3 `scope`: what a token request asks for, space-delimited. */
export const scopeParameter = z
  .string()
  .max(4096)
  .optional()
  .describe(
    'RFC 6749 §3.3: the scopes asked for, space-delimited; absent: the defaults (GET /.well-known/oauth-authorization-server lists scopes_supported)',
  );

/** The scopes a `scope` parameter asks for (undefined: none named, the defaults). */
export function requestedScopes(text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  const words = scopeWords(text);
  const malformed = malformedScope(words);
  if (malformed !== undefined) {
    throw new InvalidScopeError(
      `scope "${malformed.slice(0, 64)}" is not a scope (RFC 6749 §3.3: printable ASCII without space, " or \\, at most 128 characters)`,
    );
  }
  return words;
}
