/** The HTTP scheme a token came with, and the one its refusal's challenge names. */
export type TokenScheme = 'Bearer' | 'DPoP';

/** What a refusal's challenge says beyond its code and message. */
export interface ChallengeDetails {
  /**
   * The scheme the challenge names. By default `DPoP` for a refused proof and `Bearer` otherwise;
   * a DPoP-bound token refused for its scope is answered in `DPoP` (RFC 9449 §7.1).
   */
  readonly scheme?: TokenScheme;
  /** The scopes the route requires, space-separated: the challenge's `scope` (RFC 6750 §3). */
  readonly scope?: string;
}

/** Why a request was refused, with the HTTP answer a resource server should give. */
export class VerifyError extends Error {
  /** For `insufficient_scope`: the scopes the route requires, space-separated. */
  readonly scope: string | undefined;

  constructor(
    readonly code:
      | 'invalid_request'
      | 'invalid_token'
      | 'invalid_dpop_proof'
      | 'insufficient_scope'
      | 'unavailable',
    message: string,
    readonly status: 400 | 401 | 403 | 503,
    private readonly details: ChallengeDetails = {},
  ) {
    super(message);
    this.name = 'VerifyError';
    this.scope = details.scope;
  }

  /**
   * The `WWW-Authenticate` challenge of this refusal (RFC 6750 §3, RFC 9449 §7.1): for a missing
   * scope, `Bearer error="insufficient_scope", scope="…", error_description="…"`.
   */
  get challenge(): string {
    const scheme = this.details.scheme ?? (this.code === 'invalid_dpop_proof' ? 'DPoP' : 'Bearer');
    const error = this.code === 'unavailable' ? 'temporarily_unavailable' : this.code;
    // Scope words are RFC 6749 §3.3 NQCHARs (checked where routes declare them): nothing to quote.
    const scope = this.scope === undefined ? '' : `, scope="${this.scope}"`;
    // A quote or backslash would end or escape the quoted-string early.
    const description = this.message.replace(/["\\]/g, "'");
    return `${scheme} error="${error}"${scope}, error_description="${description}"`;
  }
}
