import type { CredentialRefusal } from '../../domain/credential/decide.js';
import {
  fieldsInvalid,
  InvalidRequestError,
  InvalidScopeError,
  NotFoundError,
} from '../../errors/errors.js';
import type { Refusals } from '../handle.js';

/** The answer to a client limit above its space's ceiling, named by its field. */
export function overSpaceCeiling(ports: { readonly spaceRateLimitPerMinute: number }): Error {
  const message = `must not exceed the space's ceiling of ${ports.spaceRateLimitPerMinute} per minute`;
  return fieldsInvalid({ field: 'rate_limit_per_minute', message });
}

/** A scope no audience's catalog lists, named by its field. */
export function unknownScope(scope: string | undefined): Error {
  const message = `"${scope}" is not in the scope catalog (GET /.well-known/oauth-authorization-server lists scopes_supported)`;
  return new InvalidScopeError(`scopes: ${message}`);
}

/** 404 for no or another space's credential, else 400; `whenRevoked` says what a revoked one cannot do. */
export function refusalsOf<Command extends { readonly clientId: string }>(
  ports: { readonly spaceRateLimitPerMinute: number },
  whenRevoked: string,
): Refusals<CredentialRefusal, Command> {
  return {
    over_space_ceiling: () => overSpaceCeiling(ports),
    invalid_scope: (_command, scope) => unknownScope(scope),
    not_found: (command) => new NotFoundError(`no credential "${command.clientId}" in this space`),
    revoked: () => new InvalidRequestError(whenRevoked),
    wrong_method: () =>
      new InvalidRequestError(
        'this credential authenticates the other way (a secret, or its keys with private_key_jwt)',
      ),
  };
}
