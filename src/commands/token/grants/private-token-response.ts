import type { IssuedToken } from '../record-issued.js';
import type { GrantResponse } from './grant.js';

/** A private token as RFC 6749 §5.1 answers it (client_credentials and jwt-bearer alike). */
export function privateTokenResponse(issued: IssuedToken): GrantResponse {
  return {
    body: {
      access_token: issued.token,
      token_type: issued.tokenType,
      expires_in: issued.expiresIn,
      ...(issued.scope ? { scope: issued.scope } : {}),
    },
    rateLimit: issued.rateLimit,
  };
}
