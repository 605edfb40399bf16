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
  /**
   * The request carried no token at all: RFC 6750 §3.1 says the challenge then names no error,
   * only where to look (`resource_metadata`, `scope`).
   */
  readonly noToken?: boolean;
  /** This resource's RFC 9728 metadata URL: the challenge's `resource_metadata` (§5.1). */
  readonly resourceMetadata?: string;
}

/** Why a request was refused, with the HTTP answer a resource server should give. */
export class VerifyError extends Error {
  /** For `insufficient_scope`: the scopes the route requires, space-separated. */
  readonly scope: string | undefined;

  constructor(
    /**
     * RFC 6750 §3.1's codes, RFC 9449's `invalid_dpop_proof`, and the kit's two for a route's
     * delegation rule (403, beside `insufficient_scope`): `delegation_required` (the token acts
     * for no agent, or not only through the agents allowed) and `delegation_refused`.
     */
    readonly code:
      | 'invalid_request'
      | 'invalid_token'
      | 'invalid_dpop_proof'
      | 'insufficient_scope'
      | 'delegation_required'
      | 'delegation_refused'
      | 'unavailable',
    message: string,
    readonly status: 400 | 401 | 403 | 503,
    private readonly details: ChallengeDetails = {},
  ) {
    super(message);
    this.name = 'VerifyError';
    this.scope = details.scope;
  }

  /** This refusal, its challenge naming the resource's metadata URL (RFC 9728 §5.1). */
  withResourceMetadata(url: string): VerifyError {
    return new VerifyError(this.code, this.message, this.status, {
      ...this.details,
      resourceMetadata: url,
    });
  }

  /**
   * The `WWW-Authenticate` challenge of this refusal (RFC 6750 §3, RFC 9449 §7.1, RFC 9728
   * §5.1): for a missing scope, `Bearer error="insufficient_scope", scope="…",
   * error_description="…"`, then `resource_metadata="…"` when the verifier has metadata.
   */
  get challenge(): string {
    const scheme = this.details.scheme ?? (this.code === 'invalid_dpop_proof' ? 'DPoP' : 'Bearer');
    const error = this.code === 'unavailable' ? 'temporarily_unavailable' : this.code;
    // A quote or backslash would end or escape the quoted-string early.
    const description = this.message.replace(/["\\]/g, "'");
    const params = [
      ...(this.details.noToken ? [] : [`error="${error}"`]),
      // Scope words are RFC 6749 §3.3 NQCHARs (checked where routes declare them): nothing to quote.
      ...(this.scope === undefined ? [] : [`scope="${this.scope}"`]),
      ...(this.details.noToken ? [] : [`error_description="${description}"`]),
      // A URL the verifier was configured with and checked: no quote nor backslash in it.
      ...(this.details.resourceMetadata === undefined
        ? []
        : [`resource_metadata="${this.details.resourceMetadata}"`]),
    ];
    return params.length === 0 ? scheme : `${scheme} ${params.join(', ')}`;
  }
}
