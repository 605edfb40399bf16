import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import {
  InsufficientScopeError,
  InvalidDpopProofError,
  InvalidGrantError,
  InvalidTokenError,
} from '../../../errors/errors.js';
import type { PrivateTokenClaims } from '../../../crypto/access-tokens.js';
import { authenticateClient } from '../../client-authentication/authenticate.js';
import { issuePublicToken } from '../issue-public.js';
import { defineGrant } from './grant.js';

/** RFC 8693 §3: the type of what is exchanged and what is issued. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

const identifier = z.string().trim().min(1, 'must not be empty').max(256);

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
 * name the token's own client. A bad subject token is `invalid_grant`.
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
  }),
  issues: 'public-token-issued',
  async handle(ctx, { fields, client, dpop, spaceId, origin }) {
    if (spaceId === undefined) throw new Error('the route checks the space first');
    const privateToken = await subjectToken(ctx, fields.subject_token);
    const metadata = { actor: clientActor(privateToken.client_id), ...origin };
    if (client) {
      const credential = await authenticateClient(ctx, { proof: client, metadata });
      if (credential.clientId !== privateToken.client_id) {
        throw new InvalidGrantError('the subject token was issued to another client');
      }
    }
    // A bound subject token is exchanged only with a proof by its key (RFC 9449 §5, §7).
    const bound = privateToken.cnf?.jkt;
    if (bound && dpop?.jkt !== bound) {
      throw new InvalidDpopProofError('the subject token is DPoP-bound: send a proof by its key');
    }
    const issued = await asGrantError(() =>
      issuePublicToken(ctx, {
        spaceId,
        customerId: fields.customer_id,
        segmentId: fields.segment_id,
        privateToken,
        metadata,
        dpop,
        bindTo: fields.dpop_jkt,
      }),
    );
    return {
      body: {
        access_token: issued.token,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: issued.tokenType,
        expires_in: issued.expiresIn,
      },
      rateLimit: issued.rateLimit,
    };
  },
});

/** The subject token as a verified private token, or invalid_grant saying why not. */
function subjectToken(
  ctx: Parameters<typeof tokenExchangeGrant.handle>[0],
  token: string,
): Promise<PrivateTokenClaims> {
  return asGrantError(() => ctx.verifier.verify(token, 'private'));
}

/** RFC 8693 §2.2.2: what is wrong with the subject token is invalid_grant, not invalid_token. */
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
