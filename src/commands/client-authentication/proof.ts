import { decodeJwt, type JWTPayload } from 'jose';
import { InvalidClientError } from '../../errors/errors.js';

/** How a client proves who it is: its secret, an assertion signed with its key, or a trusted issuer's. */
export type ClientProof =
  | { readonly method: 'secret'; readonly clientId: string; readonly secret: string }
  | {
      /** `assertion`: private_key_jwt; `trusted-issuer`: RFC 7523 §2.2 by a space's issuer. */
      readonly method: 'assertion' | 'trusted-issuer';
      readonly clientId: string;
      readonly assertion: string;
    };

/** What an unverified `client_assertion` claims: a client's own (iss = sub), or a trusted issuer's. */
export function assertionProof(assertion: string, named: string | undefined): ClientProof {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(assertion);
  } catch {
    throw new InvalidClientError();
  }
  const federated = typeof claims.iss === 'string' && claims.iss !== claims.sub;
  const clientId = named ?? (federated ? undefined : claims.sub);
  if (typeof clientId !== 'string' || (!federated && clientId !== claims.sub)) {
    throw new InvalidClientError(
      federated ? "client_id: required with an issuer's assertion" : undefined,
    );
  }
  return { method: federated ? 'trusted-issuer' : 'assertion', clientId, assertion };
}
