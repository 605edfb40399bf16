import type { Context, Middleware, ParameterizedContext } from 'koa';
import type { AccessRefusals } from '../commands/access-refusal/record.js';
import { assertionProof, type ClientProof } from '../commands/client-authentication/proof.js';
import type { AccessRefusal } from '../domain/access-refusal/decide.js';
import { userActor } from '../domain/actors.js';
import { loginRefusal, type LoginRefusal, type LoginRoutePolicy } from '../domain/policy.js';
import { requestMetadata } from './request-context.js';
import { presentedToken } from './dpop.js';
import { z } from 'zod';
import {
  InsufficientScopeError,
  InvalidClientError,
  InvalidRequestError,
  InvalidTokenError,
} from '../errors/errors.js';
import type { Limits } from '../limits/limits.js';
import type { LoginTokenVerifier } from '../crypto/login-tokens.js';
import type { RequestState } from './state.js';
import { validate } from './validate.js';

/** The Bearer token of the request; InvalidTokenError when absent, malformed or DPoP. */
export function bearerToken(ctx: Context): string {
  const presented = presentedToken(ctx);
  if (presented.scheme !== 'Bearer') {
    throw new InvalidTokenError('Authorization header must be "Bearer <token>"');
  }
  return presented.token;
}

/** The header that carries the space id (spec: X-Service-Space-ID). */
export const SPACE_HEADER = 'X-Service-Space-ID';

/** What a space id looks like. */
export const SPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

const spaceIdSchema = z.object({
  [SPACE_HEADER]: z
    .string({ error: `${SPACE_HEADER} header is required` })
    .regex(SPACE_ID_PATTERN, 'expected 1-128 letters, digits, or _ . : -'),
});

/** The validated space id from the X-Service-Space-ID header. */
export function spaceIdHeader(ctx: Context): string {
  const value = ctx.get(SPACE_HEADER);
  return validate(spaceIdSchema, { [SPACE_HEADER]: value === '' ? undefined : value }, 'header')[
    SPACE_HEADER
  ]!;
}

/** HTTP Basic client credentials (RFC 6749 §2.3.1: each part form-urlencoded), if sent. */
export function basicCredentials(
  ctx: Context,
): { readonly clientId: string; readonly clientSecret: string } | undefined | 'malformed' {
  const header = ctx.get('authorization');
  if (!/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  try {
    const unescape = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return {
      clientId: unescape(decoded.slice(0, colon)),
      clientSecret: unescape(decoded.slice(colon + 1)),
    };
  } catch {
    return 'malformed';
  }
}

/** Login-token verification with its per-source-IP budget of failures, and its refusal events. */
export interface LoginGate {
  readonly verifier: LoginTokenVerifier;
  readonly limits: Pick<Limits, 'assertLoginNotLockedOut' | 'failedLogin'>;
  readonly refusals: Pick<AccessRefusals, 'refused' | 'lockedOut'>;
}

/** The X-Service-Space-ID as sent, if it is a space id at all (never arbitrary text in an event). */
function wellFormedSpace(ctx: Context): string | null {
  const value = ctx.get(SPACE_HEADER);
  return SPACE_ID_PATTERN.test(value) ? value : null;
}

/** Records a refused login-token request (bounded; see AccessRefusals) before it is answered. */
export function recordRefusal(
  ctx: ParameterizedContext<RequestState>,
  refusals: Pick<AccessRefusals, 'refused'>,
  refusal: {
    readonly reason: AccessRefusal['reason'];
    readonly subject: string | null;
    readonly operation: string;
  },
): Promise<void> {
  return refusals.refused(
    { ...refusal, requested_space: wellFormedSpace(ctx) },
    {
      actor: refusal.subject === null ? 'anonymous' : userActor(refusal.subject),
      ...requestMetadata(ctx),
    },
  );
}

/** What a login route's refusal says, by the policy's reason. */
const LOGIN_REFUSED: Record<LoginRefusal, (spaceId: string) => string> = {
  space_not_granted: (spaceId) => `the login token does not grant space "${spaceId}"`,
  role_forbidden: () => "this change needs the admin role; the token is an auditor's",
};

/**
 * Middleware: a valid login token whose user the route's `policy` lets into the X-Service-Space-ID
 * space (user and space left in ctx.state). A valid token is always served; an address that sent
 * too many bad ones this minute gets 429 for the next, and no credentials at all counts against
 * nobody. Bad tokens and refusals are recorded as access-refused events before the answer.
 */
export function requireLoginForSpace(
  login: LoginGate,
  operation: string,
  policy: LoginRoutePolicy,
): Middleware<RequestState> {
  return async (ctx, next) => {
    let user;
    try {
      user = await login.verifier.verify(bearerToken(ctx));
    } catch (error) {
      if (!(error instanceof InvalidTokenError && error.missingCredentials)) {
        try {
          login.limits.assertLoginNotLockedOut(ctx.ip);
        } catch (lockedOut) {
          login.refusals.lockedOut(ctx.ip, wellFormedSpace(ctx));
          throw lockedOut;
        }
        login.limits.failedLogin(ctx.ip);
        if (error instanceof InvalidTokenError) {
          await recordRefusal(ctx, login.refusals, {
            reason: 'invalid_login_token',
            subject: null,
            operation,
          });
        }
      }
      throw error;
    }
    // Known before the space is checked, so a refused cross-space attempt is logged with both.
    ctx.state.user = user;
    const spaceId = spaceIdHeader(ctx);
    ctx.state.spaceId = spaceId;
    const refused = loginRefusal(policy, user, spaceId);
    if (refused) {
      await recordRefusal(ctx, login.refusals, {
        reason: refused,
        subject: user.subject,
        operation,
      });
      throw new InsufficientScopeError(LOGIN_REFUSED[refused](spaceId));
    }
    await next();
  };
}

const secretField = z.string().min(1, 'must not be empty').max(512);
const clientCredentialsSchema = z.object({ client_id: secretField, client_secret: secretField });

/**
 * The client's id and secret, by HTTP Basic or in the body (RFC 6749 §2.3.1), never both;
 * validated like every other input. InvalidClientError for a malformed Basic header.
 */
export function clientCredentialsOf(
  ctx: Context,
  body: { readonly client_id?: unknown; readonly client_secret?: unknown },
): { readonly client_id: string; readonly client_secret: string } {
  return validate(clientCredentialsSchema, rawClientCredentials(ctx, body), 'body');
}

/** Zod shape of a client's id and secret, for endpoints that validate more fields with them. */
export const clientCredentialsShape = clientCredentialsSchema.shape;

/** The client's id and secret as sent (Basic or body), before validation. */
export function rawClientCredentials(
  ctx: Context,
  body: { readonly client_id?: unknown; readonly client_secret?: unknown },
): { readonly client_id: unknown; readonly client_secret: unknown } {
  const basic = basicCredentials(ctx);
  if (basic === 'malformed') throw new InvalidClientError();
  // RFC 6749 §2.3: one authentication method per request. A client_id repeated in the body that
  // names the same client (some libraries send it) identifies, it does not authenticate again.
  if (
    basic &&
    (body.client_secret !== undefined ||
      (body.client_id !== undefined && body.client_id !== basic.clientId))
  ) {
    throw new InvalidRequestError(
      'send client credentials either by HTTP Basic or in the body, not both',
    );
  }
  return basic
    ? { client_id: basic.clientId, client_secret: basic.clientSecret }
    : { client_id: body.client_id, client_secret: body.client_secret };
}

/** RFC 7523 §2.2: the client_assertion_type of a JWT client assertion. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const assertionSchema = z.object({
  client_assertion_type: z.literal(JWT_BEARER_ASSERTION, {
    error: `must be ${JWT_BEARER_ASSERTION}`,
  }),
  client_assertion: z.string().min(1, 'must not be empty').max(8192),
  client_id: secretField.optional(),
});

/** The body fields of client authentication, by secret or by assertion. */
export interface ClientAuthenticationFields {
  readonly client_id?: unknown;
  readonly client_secret?: unknown;
  readonly client_assertion?: unknown;
  readonly client_assertion_type?: unknown;
}

/** Whether the request authenticates the client with an assertion (its own or an issuer's). */
export function sendsAssertion(body: ClientAuthenticationFields): boolean {
  return body.client_assertion !== undefined || body.client_assertion_type !== undefined;
}

/**
 * How the client proves who it is: by HTTP Basic or `client_id`/`client_secret` in the body, or by
 * a `client_assertion` (RFC 7523 §2.2); never two methods at once (RFC 6749 §2.3). The client's
 * own assertion names it in `sub` (a `client_id` beside it must be the same); a trusted issuer's
 * is the client named by `client_id`.
 */
export function clientProofOf(ctx: Context, body: ClientAuthenticationFields): ClientProof {
  if (!sendsAssertion(body)) {
    const credentials = clientCredentialsOf(ctx, body);
    return { method: 'secret', clientId: credentials.client_id, secret: credentials.client_secret };
  }
  if (basicCredentials(ctx) !== undefined || body.client_secret !== undefined) {
    throw new InvalidRequestError('authenticate with a client assertion or a secret, not both');
  }
  const fields = validate(assertionSchema, body, 'body');
  return assertionProof(fields.client_assertion, fields.client_id);
}
