import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { issuedTo, mayTarget } from '../../../domain/policy.js';
import {
  InsufficientScopeError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  InvalidTokenError,
} from '../../../errors/errors.js';
import type { PrivateTokenClaims } from '../../../crypto/access-tokens.js';
import { authenticateClient } from '../../client-authentication/authenticate.js';
import { issuePublicToken } from '../issue-public.js';
import { defineGrant } from './grant.js';
import { requestedScopes, scopeParameter } from './scope-parameter.js';

/** RFC 8693 §3: the type of what is exchanged and what is issued. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const identifier = z.string().trim().min(1, 'must not be empty').max(256);
/** An audience or resource, as client_credentials takes it. */
const target = z.string().min(1, 'must not be empty').max(512);

/** What a public token is bought for, at /v1/issue and by token exchange alike. */
export const publicTokenFields = {
  customer_id: identifier,
  segment_id: identifier,
  /**
   * RFC 9449 §10: bind the public token to this key (a browser's or an app's; its JWK SHA-256
   * thumbprint) instead of the DPoP proof's key, if any.
   */
  dpop_jkt: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'expected a JWK SHA-256 thumbprint (43 base64url characters)')
    .optional(),
};

/**
 * RFC 8693 token exchange: a client's private token (`subject_token`) buys a public token for a
 * customer and segment of the space in X-Service-Space-ID: the same decision, event and token as
 * POST /v1/issue. The private token is the authority; client authentication, when sent, must
 * name the token's own client. A bad subject token is `invalid_grant`. What RFC 8693 §2.1 lets a
 * client ask for and this exchange does not do is refused, never ignored: another audience or
 * resource than the subject token's (`invalid_target`), an actor (`invalid_request`); a scope
 * beyond the subject token's is `invalid_scope`, as at /v1/issue; a DPoP-bound subject token needs
 * a proof by its key with its `ath`.
 */
export const tokenExchangeGrant = defineGrant({
  grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
  summary: "RFC 8693 token exchange: a client's private token buys a public token",
  clientAuthentication: 'when-sent',
  space: 'required',
  schema: z.object({
    subject_token: z.string().min(1, 'must not be empty').max(8192),
    subject_token_type: z.literal(ACCESS_TOKEN_TYPE, { error: `must be ${ACCESS_TOKEN_TYPE}` }),
    requested_token_type: z
      .literal(ACCESS_TOKEN_TYPE, { error: `only ${ACCESS_TOKEN_TYPE} is issued` })
      .optional(),
    ...publicTokenFields,
    /** RFC 8693 §2.1: the public token is for its subject token's audience; another is refused. */
    audience: target.optional(),
    /** RFC 8707's name for the same, held to the same rule. */
    resource: target.optional(),
    /** RFC 8693 §2.1: within the subject token's scopes and the catalog's public ones. */
    scope: scopeParameter,
    actor_token: z
      .string()
      .max(8192)
      .describe('RFC 8693 §2.1. Delegation is not supported: sending it is invalid_request')
      .optional(),
    actor_token_type: z
      .string()
      .max(512)
      .describe('RFC 8693 §2.1. Delegation is not supported: sending it is invalid_request')
      .optional(),
  }),
  issues: 'public-token-issued',
  async handle(ctx, { fields, client, dpop, spaceId, origin }) {
    if (spaceId === undefined) throw new Error('the route checks the space first');
    refuseWhatIsNotDone(fields);
    const privateToken = await subjectToken(ctx, fields.subject_token);
    // RFC 8693 §2.2.2: a target no token can be issued for here is invalid_target, as at
    // client_credentials; the public token is for the subject token's audience alone.
    for (const asked of [fields.audience, fields.resource]) {
      if (asked !== undefined && !mayTarget(privateToken, asked)) {
        throw new InvalidTargetError(
          asked,
          `is not the subject token's audience ("${privateToken.aud}"), the only one it buys`,
        );
      }
    }
    const metadata = { actor: clientActor(privateToken.client_id), ...origin };
    if (client) {
      const credential = await authenticateClient(ctx, { proof: client, metadata });
      if (!issuedTo({ clientId: privateToken.client_id }, credential.clientId)) {
        throw new InvalidGrantError('the subject token was issued to another client');
      }
    }
    // A bound subject token is exchanged only with a proof by its key, carrying its hash (ath),
    // as POST /v1/issue asks of a bound private token (RFC 9449 §4.3, §7).
    const proof = await dpop({ token: fields.subject_token, claims: privateToken });
    const issued = await asGrantError(() =>
      issuePublicToken(ctx, {
        spaceId,
        customerId: fields.customer_id,
        segmentId: fields.segment_id,
        privateToken,
        metadata,
        dpop: proof,
        bindTo: fields.dpop_jkt,
        scopes: requestedScopes(fields.scope),
      }),
    );
    return {
      body: {
        access_token: issued.token,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: issued.tokenType,
        expires_in: issued.expiresIn,
        ...(issued.scope ? { scope: issued.scope } : {}),
      },
      rateLimit: issued.rateLimit,
    };
  },
});

/**
 * RFC 8693 §2.1 parameters this exchange does not do, refused rather than ignored: an actor
 * (delegation) is invalid_request.
 */
function refuseWhatIsNotDone(fields: {
  readonly actor_token?: string | undefined;
  readonly actor_token_type?: string | undefined;
}): void {
  const actor = (['actor_token', 'actor_token_type'] as const).filter(
    (field) => fields[field] !== undefined,
  );
  if (actor.length > 0) {
    const message = 'delegation is not supported: send no actor_token or actor_token_type';
    throw new InvalidRequestError(
      message,
      actor.map((field) => ({ field, message })),
    );
  }
}

/** The subject token as a verified private token, or invalid_grant saying why not. */
function subjectToken(
  ctx: Parameters<typeof tokenExchangeGrant.handle>[0],
  token: string,
): Promise<PrivateTokenClaims> {
  return asGrantError(() => ctx.verifier.verify(token, 'private'));
}

/**
 * What is wrong with the subject token is invalid_grant (RFC 6749 §5.2: the grant presented is
 * invalid), not invalid_token. RFC 8693 §2.2.2 itself names invalid_request for it; invalid_grant
 * is kept as the answer clients of this service already handle.
 */
async function asGrantError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError) {
      throw new InvalidGrantError(`subject_token: ${error.message}`);
    }
    throw error;
  }
}
