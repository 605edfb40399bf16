import { errors } from 'jose';

/**
 * Why a token or a DPoP proof is refused, as the package's checks throw it: `code` is the OAuth
 * error (RFC 6750 §3.1 `invalid_token`, RFC 9449 §7.1 `invalid_dpop_proof`), the message says
 * what is wrong. The service turns it into its own error (src/crypto), the kit into a VerifyError.
 */
export class TokenRefusal extends Error {
  constructor(
    readonly code: 'invalid_token' | 'invalid_dpop_proof',
    message: string,
  ) {
    super(message);
    this.name = 'TokenRefusal';
  }
}

/** A JWS jose refused: the claim at fault (`signature` for all before the signature held) and why. */
export interface JoseRefusal {
  readonly claim: string;
  /** What is wrong, after "the token": `has expired`, `signature does not verify`. */
  readonly reason: string;
}

/**
 * The one reading of a failed jwtVerify, for every path that verifies a JWS; undefined for a
 * failure that is no JWS's (to be rethrown). A key that does not fit the header's alg (ES384
 * naming a P-256 key, HS256 naming a public key) fails below jose, in WebCrypto (a DOMException,
 * DataError) or in its key check (a TypeError): a signature that does not verify, as any other.
 */
export function joseRefusal(error: unknown): JoseRefusal | undefined {
  if (error instanceof errors.JWTExpired) return { claim: 'exp', reason: 'has expired' };
  if (error instanceof errors.JWTClaimValidationFailed) {
    const how = error.reason === 'missing' ? 'is missing' : 'is not acceptable';
    return { claim: error.claim, reason: `claim "${error.claim}" ${how}` };
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return { claim: 'alg', reason: 'algorithm is not accepted' };
  if (
    error instanceof errors.JOSEError ||
    error instanceof DOMException ||
    error instanceof TypeError
  )
    return { claim: 'signature', reason: 'signature does not verify with the key it names' };
  return undefined;
}
