import type { ParameterizedContext } from 'koa';
import { DPOP_ALGORITHMS } from '../crypto/dpop.js';
import type { ErrorDialect, RequestState } from './state.js';
import type { Logger } from 'pino';
import { AppendRefusedError } from '#event-log/errors.js';
import { isDatabaseUnavailable } from '../db/postgres-errors.js';
import type { RateLimitState } from '../limits/limits.js';
import {
  InvalidRequestError,
  InvalidTokenError,
  MethodNotAllowedError,
  RangeArchivedError,
  RateLimitedError,
  TokenAuthorityError,
  UnavailableError,
  UnsupportedMediaTypeError,
  type ErrorCode,
} from '../errors/errors.js';

/** The one map from error code to HTTP status and the title a problem body gives it. */
const STATUS_AND_TITLE: Readonly<Record<ErrorCode, readonly [status: number, title: string]>> = {
  invalid_request: [400, 'Invalid request'],
  malformed_json: [400, 'Malformed JSON body'],
  unsupported_media_type: [415, 'Unsupported media type'],
  payload_too_large: [413, 'Payload too large'],
  not_found: [404, 'Not found'],
  method_not_allowed: [405, 'Method not allowed'],
  invalid_token: [401, 'Invalid token'],
  insufficient_scope: [403, 'Insufficient scope'],
  invalid_client: [401, 'Invalid client'],
  unsupported_grant_type: [400, 'Unsupported grant type'],
  invalid_grant: [400, 'Invalid grant'],
  invalid_target: [400, 'Invalid target'],
  invalid_scope: [400, 'Invalid scope'],
  conflict: [409, 'Conflict'],
  idempotency_key_reused: [422, 'Idempotency-Key reused'],
  invalid_dpop_proof: [400, 'Invalid DPoP proof'],
  invalid_authorization_details: [400, 'Invalid authorization details'],
  unavailable: [503, 'Service unavailable'],
  rate_limited: [429, 'Too many requests'],
  range_archived: [410, 'Range archived'],
  internal: [500, 'Internal error'],
};

/**
 * The status of `code` in `dialect`: STATUS_AND_TITLE's, but a bad DPoP proof at a resource (the
 * bearer dialect) is the RFC 9449 §7.1 401 challenge, where the token endpoint answers 400 (§5).
 */
export function statusOf(code: ErrorCode, dialect: ErrorDialect): number {
  return code === 'invalid_dpop_proof' && dialect === 'bearer' ? 401 : STATUS_AND_TITLE[code][0];
}

// RFC 6749 §5.2 knows fewer codes than we do; the rest are flavours of invalid_request.
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  invalid_client: 'invalid_client',
  unsupported_grant_type: 'unsupported_grant_type',
  invalid_grant: 'invalid_grant',
  invalid_target: 'invalid_target',
  invalid_scope: 'invalid_scope',
  // RFC 9449 §5: the token endpoint's error for a bad proof.
  invalid_dpop_proof: 'invalid_dpop_proof',
  invalid_authorization_details: 'invalid_authorization_details',
  unavailable: 'temporarily_unavailable',
  // RFC 6749 has no code for it; the status (429) and Retry-After carry the meaning.
  rate_limited: 'rate_limited',
  internal: 'server_error',
};

/**
 * The RateLimit-Policy and RateLimit headers of the IETF httpapi draft (structured fields):
 * `RateLimit-Policy: "client";q=600;w=60` and `RateLimit: "client";r=0;t=12`.
 */
export function setRateLimitHeaders(
  ctx: ParameterizedContext<RequestState>,
  // Any budget's: a refusal names the one it spent (failed-auth, login-failures), not only `client`.
  state: Omit<RateLimitState, 'policy'> & { readonly policy: string },
): void {
  ctx.set('RateLimit-Policy', `"${state.policy}";q=${state.quota};w=${state.windowSeconds}`);
  ctx.set('RateLimit', `"${state.policy}";r=${state.remaining};t=${state.resetSeconds}`);
}

/** Writes `error` to the response in the endpoint's dialect. Unknown errors become a logged 500. */
export function writeError(
  ctx: ParameterizedContext<RequestState>,
  error: unknown,
  dialect: ErrorDialect,
  logger: Logger,
): void {
  const known = toKnownError(error);
  if (known.code === 'internal') {
    logger.error({ err: error, requestId: ctx.state.requestId }, 'unhandled error');
  } else if (known.code === 'unavailable') {
    logger.warn({ err: error, requestId: ctx.state.requestId }, 'dependency unavailable');
  }
  const status = statusOf(known.code, dialect);
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  if (known instanceof MethodNotAllowedError) ctx.set('Allow', known.allowed.join(', '));
  if (known instanceof UnsupportedMediaTypeError) ctx.set('Accept', known.accepted.join(', '));
  if (known instanceof UnavailableError) ctx.set('Retry-After', String(known.retryAfterSeconds));
  if (known instanceof RateLimitedError) {
    const { policy, retryAfterSeconds } = known.limit;
    ctx.state.rateLimitPolicy = policy;
    ctx.set('Retry-After', String(retryAfterSeconds));
    setRateLimitHeaders(ctx, { ...known.limit, remaining: 0, resetSeconds: retryAfterSeconds });
  }
  const fields =
    known instanceof InvalidRequestError && known.fields.length > 0
      ? { invalid_fields: known.fields }
      : {};
  if (dialect === 'oauth') {
    if (
      known.code === 'invalid_client' &&
      ctx.get('authorization').toLowerCase().startsWith('basic')
    ) {
      ctx.set('WWW-Authenticate', 'Basic realm="token-authority", charset="UTF-8"');
    }
    ctx.type = 'application/json';
    ctx.body = {
      error: OAUTH_ERROR[known.code] ?? 'invalid_request',
      error_description: known.message,
      ...fields,
    };
    return;
  }

  if (dialect === 'bearer' && known.code === 'invalid_dpop_proof') {
    ctx.set(
      'WWW-Authenticate',
      `DPoP algs="${DPOP_ALGORITHMS.join(' ')}", error="invalid_dpop_proof", error_description="${known.message.replace(/["\\]/g, "'")}"`,
    );
  }
  if (
    dialect === 'bearer' &&
    (known.code === 'invalid_token' || known.code === 'insufficient_scope')
  ) {
    const missing = known instanceof InvalidTokenError && known.missingCredentials;
    ctx.set(
      'WWW-Authenticate',
      missing
        ? 'Bearer realm="token-authority"'
        : `Bearer realm="token-authority", error="${known.code}", error_description="${known.message.replace(/["\\]/g, "'")}"`,
    );
  }
  ctx.type = 'application/problem+json';
  ctx.body = {
    type: `https://token-authority.dev/problems/${known.code}`,
    title: STATUS_AND_TITLE[known.code][1],
    status,
    detail: known.message,
    code: known.code,
    instance: ctx.path,
    request_id: ctx.state.requestId,
    ...fields,
    ...(known instanceof RangeArchivedError ? { archived: known.archived } : {}),
  };
}

function toKnownError(error: unknown): TokenAuthorityError {
  if (error instanceof TokenAuthorityError) return error;
  if (isDatabaseUnavailable(error)) {
    return new UnavailableError('database unavailable; retry shortly', { cause: error });
  }
  if (error instanceof AppendRefusedError) {
    return new UnavailableError(`${error.message}; retry shortly`, { cause: error });
  }
  // Postgres "data exception" (class 22): a value the edge let through but the database cannot
  // store. The edge should have said so (validate); this keeps it a 400 if it ever does not.
  const sqlState = (error as { code?: unknown } | null)?.code;
  if (typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState)) {
    return new InvalidRequestError('a value in the request cannot be stored');
  }
  return new TokenAuthorityError(
    'internal',
    'internal error; see the service log for the request id',
  );
}
