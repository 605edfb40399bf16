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
