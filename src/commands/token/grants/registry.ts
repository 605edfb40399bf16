import { clientCredentialsGrant } from '../private/client-credentials.js';
import type { Grant } from './grant.js';
import { tokenExchangeGrant } from '../public/token-exchange.js';
import { jwtBearerGrant } from '../private/jwt-bearer.js';
import { authorizationCodeGrant } from '../delegated/authorization-code.js';
import { refreshTokenGrant } from '../delegated/refresh-token.js';

/** Every grant the token endpoint takes (docs/architecture.md, "Adding a grant"). */
export const GRANTS: readonly Grant[] = [
  clientCredentialsGrant,
  tokenExchangeGrant,
  jwtBearerGrant,
  authorizationCodeGrant,
  refreshTokenGrant,
];

/** The `grant_type` values, for discovery and the unsupported-grant error. */
export const GRANT_TYPES: readonly string[] = GRANTS.map((grant) => grant.grantType);

/** The grant for `grantType`, if there is one. */
export function grantNamed(grantType: string): Grant | undefined {
  return GRANTS.find((grant) => grant.grantType === grantType);
}
