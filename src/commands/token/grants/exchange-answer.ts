import {
  InsufficientScopeError,
  InvalidGrantError,
  InvalidTokenError,
} from '../../../errors/errors.js';
import type { IssuedToken } from '../record-issued.js';
import type { GrantResponse } from './grant.js';

/** RFC 8693 §3: the type of what is exchanged and what is issued. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * What is wrong with a presented token (`subject_token`, `actor_token`) is invalid_grant (RFC 6749
 * §5.2: the grant presented is invalid), not invalid_token. RFC 8693 §2.2.2 itself names
 * invalid_request for it; invalid_grant is kept as the answer clients of this service already
 * handle.
 */
export async function asGrantError<T>(run: () => Promise<T>, field = 'subject_token'): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError) {
      throw new InvalidGrantError(`${field}: ${error.message}`);
    }
    throw error;
  }
}

/** RFC 8693 §2.2.1: the token exchange's answer. */
export function exchangeResponse(issued: IssuedToken): GrantResponse {
  return {
    body: {
      access_token: issued.token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: issued.tokenType,
      expires_in: issued.expiresIn,
      ...(issued.scope ? { scope: issued.scope } : {}),
    },
    rateLimit: issued.rateLimit,
  };
}
