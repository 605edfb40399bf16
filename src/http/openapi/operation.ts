import type { z } from 'zod';
import type { ErrorCode } from '../../errors/errors.js';
import type { ErrorDialect } from '../state.js';

/** Who may call an operation, as OpenAPI security requirements (see document.ts). */
export type Caller = 'public' | 'login' | 'client' | 'private-token';

/** One response an operation gives on success. */
export interface SuccessResponse {
  readonly status: number;
  readonly description: string;
  /** JSON body; omit for a non-JSON body and give `mediaType`. */
  readonly schema?: z.ZodType;
  readonly mediaType?: string;
}

/**
 * One route as the OpenAPI document describes it, declared beside the route with the same zod
 * schemas the handler validates with. test/integration/service/openapi.test.ts checks that the
 * routers serve exactly these and that real responses match them.
 */
export interface Operation {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa path syntax (`/v1/credential/:client_id`). */
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly caller: Caller;
  /** Needs X-Service-Space-ID (login routes always do, undeclared). */
  readonly spaceHeader?: boolean;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** Request headers the handler reads besides authentication (named as sent). */
  readonly headers?: z.ZodObject;
  readonly body?: {
    readonly schema: z.ZodType;
    readonly media: readonly ('json' | 'form')[];
    readonly optional?: boolean;
  };
  readonly responses: readonly SuccessResponse[];
  /** Error codes this operation may answer with; 500 and 503 are added to every operation. */
  readonly errors: readonly ErrorCode[];
  readonly dialect: ErrorDialect;
}

/** What any route that reads a body may answer. */
export const BODY_ERRORS = [
  'invalid_request',
  'malformed_json',
  'unsupported_media_type',
  'payload_too_large',
] as const satisfies readonly ErrorCode[];

/** What any route behind a login token (requireLoginForSpace) may answer. */
export const LOGIN_ERRORS = [
  'invalid_request',
  'invalid_token',
  'insufficient_scope',
  'rate_limited',
] as const satisfies readonly ErrorCode[];
