/** Each client-caused error has one stable `code`; src/http/error-response.ts maps it to HTTP. */
export type ErrorCode =
  | 'invalid_request'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_grant'
  | 'invalid_target'
  | 'invalid_scope'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'invalid_dpop_proof'
  | 'invalid_authorization_details'
  | 'unavailable'
  | 'rate_limited'
  | 'range_archived'
  | 'internal';

/** One offending input: where it is and what is wrong with it. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/** Base of every error this service throws on purpose. */
export class TokenAuthorityError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A body, header or query that failed validation; `fields` names each problem. */
export class InvalidRequestError extends TokenAuthorityError {
  readonly fields: readonly FieldProblem[];
  constructor(message: string, fields: readonly FieldProblem[] = []) {
    super('invalid_request', message);
    this.fields = fields;
  }
}

/** An invalid request naming each field at fault: `<field> <message>`, `; ` between them. */
export const fieldsInvalid = (...problems: FieldProblem[]): InvalidRequestError =>
  new InvalidRequestError(problems.map((p) => `${p.field} ${p.message}`).join('; '), problems);

/** The body could not be read as the type it claims. */
export class MalformedBodyError extends TokenAuthorityError {
  constructor(message = 'request body is not valid JSON') {
    super('malformed_json', message);
  }
}

/** The Content-Type is missing or not one this endpoint takes. */
export class UnsupportedMediaTypeError extends TokenAuthorityError {
  constructor(readonly accepted: readonly string[]) {
    super('unsupported_media_type', `Content-Type must be ${accepted.join(' or ')}`);
  }
}

/** The body is larger than BODY_LIMIT_BYTES. */
export class PayloadTooLargeError extends TokenAuthorityError {
  constructor(readonly limitBytes: number) {
    super('payload_too_large', `request body exceeds ${limitBytes} bytes`);
  }
}

/** No such route. */
export class NotFoundError extends TokenAuthorityError {
  constructor(message = 'no such resource') {
    super('not_found', message);
  }
}

/** The route exists but not with this method. */
export class MethodNotAllowedError extends TokenAuthorityError {
  constructor(readonly allowed: readonly string[]) {
    super('method_not_allowed', `method not allowed; use ${allowed.join(', ')}`);
  }
}

/** A Bearer token that is missing, malformed, expired, of the wrong kind or not trusted. */
export class InvalidTokenError extends TokenAuthorityError {
  /** True when no token was sent at all (RFC 6750 §3.1: the challenge then carries no error). */
  readonly missingCredentials: boolean;
  constructor(message: string, options: { missingCredentials?: boolean } = {}) {
    super('invalid_token', message);
    this.missingCredentials = options.missingCredentials ?? false;
  }
}

/** A valid token that does not grant this (another space, say). */
export class InsufficientScopeError extends TokenAuthorityError {
  constructor(message: string) {
    super('insufficient_scope', message);
  }
}

/** Client authentication failed, never saying which part, but a trusted issuer's claim at fault. */
export class InvalidClientError extends TokenAuthorityError {
  /** `description`: only what gives nothing away (an issuer's claim at fault, a metadata URL). */
  constructor(description = 'client authentication failed') {
    super('invalid_client', description);
  }
}

/** grant_type other than client_credentials. */
export class UnsupportedGrantTypeError extends TokenAuthorityError {
  /** `supported`: the grant registry's types, so the message names every way in. */
  constructor(grantType: string, supported: readonly string[]) {
    super(
      'unsupported_grant_type',
      `grant_type "${grantType}" is not supported; use one of ${supported.join(', ')}`,
    );
  }
}

/** A grant's own evidence (RFC 8693: the subject token) does not hold (RFC 6749 §5.2). */
export class InvalidGrantError extends TokenAuthorityError {
  constructor(message: string) {
    super('invalid_grant', message);
  }
}

/** An audience no token can be issued for: not configured, or not the subject token's (RFC 8693). */
export class InvalidTargetError extends TokenAuthorityError {
  constructor(audience: string, why = 'is not a known Storefront API') {
    super('invalid_target', `audience "${audience}" ${why}`);
  }
}

/** A requested scope that cannot be granted (RFC 6749 §5.2). */
export class InvalidScopeError extends TokenAuthorityError {
  constructor(message: string) {
    super('invalid_scope', message);
  }
}

/** A concurrent change won; retrying may succeed. */
export class ConflictError extends TokenAuthorityError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** An Idempotency-Key already answered a different request (IETF httpapi idempotency draft). */
export class IdempotencyKeyReusedError extends TokenAuthorityError {
  constructor(message: string) {
    super('idempotency_key_reused', message);
  }
}

/** A DPoP proof (RFC 9449) that is missing, malformed, replayed or for another request. */
export class InvalidDpopProofError extends TokenAuthorityError {
  constructor(message: string) {
    super('invalid_dpop_proof', message);
  }
}

/** RFC 9396 §5: `authorization_details` that may not be granted (widened, or not delegated). */
export class InvalidAuthorizationDetailsError extends TokenAuthorityError {
  constructor(message: string) {
    super('invalid_authorization_details', message);
  }
}

/** A dependency (the database, the write queue) cannot take the request now; retry later. */
export class UnavailableError extends TokenAuthorityError {
  readonly retryAfterSeconds: number;
  constructor(message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super('unavailable', message, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/** A budget is spent; `retryAfterSeconds` says when to try again. */
export class RateLimitedError extends TokenAuthorityError {
  constructor(
    message: string,
    readonly limit: {
      /** Policy name in the RateLimit headers: which budget this is. */
      readonly policy:
        | 'client'
        | 'space'
        | 'failed-auth'
        | 'login-failures'
        | 'audit-streams'
        | 'audit-proofs'
        | 'delegation'
        | 'authorize'
        | 'signal-poll'
        | 'stream-verification';
      readonly quota: number;
      readonly windowSeconds: number;
      readonly retryAfterSeconds: number;
    },
  ) {
    super('rate_limited', message);
  }
}

/** Where part of the audit trail went: an archive file and the range it holds. */
export interface ArchivedRange {
  readonly from: string;
  readonly to: string;
  readonly file: string;
  readonly sha256: string;
  readonly events: number;
}

/** Everything asked for left the database for archive files: they are named, not an empty page. */
export class RangeArchivedError extends TokenAuthorityError {
  constructor(readonly archived: readonly ArchivedRange[]) {
    super(
      'range_archived',
      `the events asked for are archived, in ${archived.map((range) => range.file).join(', ')} (npm run verify-export -- --archive-dir)`,
    );
  }
}
