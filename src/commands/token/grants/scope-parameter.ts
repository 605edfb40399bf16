import { z } from 'zod';
import { malformedScope, scopeWords } from '#verifier/scope.js';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';
import { InvalidScopeError } from '../../../errors/errors.js';

/** RFC 6749 §3.3 `scope`: what a token request asks for, space-delimited. */
export const scopeParameter = z
  .string()
  .max(4096)
  .optional()
  .describe(
    'RFC 6749 §3.3: the scopes asked for, space-delimited; absent: the defaults (GET /.well-known/oauth-authorization-server lists scopes_supported)',
  );

/** An audience, resource or client id as a token request names it. */
export const target = z.string().min(1, 'must not be empty').max(512);

/** A private token's audience (`resource`, RFC 8707's name, taken for it too) and scope. */
export const privateTokenTarget = {
  audience: target,
  resource: target.optional(),
  scope: scopeParameter,
};

/** RFC 8707's `resource` folded into `audience`, so generic OAuth clients work. */
export const audienceOfResource = (body: Readonly<Record<string, unknown>>) => ({
  ...body,
  audience: body.audience ?? body.resource,
});

/** RFC 9396 `authorization_details`: JSON text in a form body (§3), read as tokens read it. */
export const authorizationDetailsParameter = z
  .preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, authorizationDetailsSchema)
  .optional()
  .describe(
    "RFC 9396: a JSON array of objects with a `type` (at most 8, 2048 characters of JSON), only with may_act: carried into the agent's delegated token, which may ask for fewer of them, never others",
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
