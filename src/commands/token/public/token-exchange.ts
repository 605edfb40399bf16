import { z } from 'zod';
import { clientActor } from '../../../domain/actors.js';
import { InvalidRequestError } from '../../../errors/errors.js';
import { issuePublicToken } from './issue.js';
import { defineGrant } from '../grants/grant.js';
import { asksDelegation, delegatedExchange } from '../delegated/exchange.js';
import { JWT_TOKEN_TYPE } from '../delegated/actor.js';
import {
  authorizationDetailsParameter,
  requestedScopes,
  scopeParameter,
  target,
} from '../grants/scope-parameter.js';
import {
  ACCESS_TOKEN_TYPE,
  asGrantError,
  requireSentClient,
  requireSubjectAudience,
  tokenResponse,
} from '../grants/answer.js';

const identifier = z.string().trim().min(1, 'must not be empty').max(256);

/** What a public token is bought for, at /v1/issue and by token exchange alike. */
export const publicTokenFields = {
  customer_id: identifier,
  segment_id: identifier,
  /** RFC 9449 §10: bind the public token to this key (a browser's) instead of the proof's. */
  dpop_jkt: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'expected a JWK SHA-256 thumbprint (43 base64url characters)')
    .optional(),
  /** RFC 8693 §4.4: the agent (a client id of this space) the customer allows to act for them. */
  may_act: identifier
    .optional()
    .describe(
      'RFC 8693 §4.4: the client id of the agent (of this space) the customer allows to exchange the token for one acting for them; the token is then short-lived. On a delegated exchange (with actor_token): the next agent the acting agent allows, within DELEGATION_MAX_DEPTH',
    ),
};

/**
 * RFC 8693 token exchange: a client's private token buys a public token, as POST /v1/issue does.
 * What §2.1 allows and this exchange does not do is refused, never ignored. An `actor_token` is
 * delegation (./delegation.ts).
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
    // Required unless delegating: then the subject token names them.
    customer_id: publicTokenFields.customer_id.optional(),
    segment_id: publicTokenFields.segment_id.optional(),
    /** RFC 8693 §2.1: the public token is for its subject token's audience; another is refused. */
    audience: target.optional(),
    /** RFC 8707's name for the same, held to the same rule. */
    resource: target.optional(),
    /** RFC 8693 §2.1: within the subject token's scopes and the catalog's public ones. */
    scope: scopeParameter,
    authorization_details: authorizationDetailsParameter,
    actor_token: z
      .string()
      .max(8192)
      .describe(
        "RFC 8693 §2.1: the agent's own private token, or (actor_token_type jwt) a private_key_jwt assertion of its credential or a trusted issuer's assertion, delegating a subject_token whose may_act names it; with any other subject_token, invalid_request",
      )
      .optional(),
    actor_token_type: z
      .string()
      .max(512)
      .describe(`RFC 8693 §2.1: with actor_token, ${ACCESS_TOKEN_TYPE} or ${JWT_TOKEN_TYPE}`)
      .optional(),
  }),
  issues: 'public-token-issued',
  async handle(ctx, { fields, client, dpop, spaceId, origin }) {
    if (spaceId === undefined) throw new Error('the route checks the space first');
    if (asksDelegation(fields)) {
      return delegatedExchange(ctx, { fields, client, dpop, spaceId, origin });
    }
    const { customer_id: customerId, segment_id: segmentId } = requireCustomer(fields);
    const privateToken = await asGrantError(() =>
      ctx.verifier.verify(fields.subject_token, 'private'),
    );
    requireSubjectAudience(fields, privateToken, ', the only one it buys');
    const metadata = { actor: clientActor(privateToken.client_id), ...origin };
    const issued = { clientId: privateToken.client_id, token: 'subject token' };
    await requireSentClient(ctx, client, origin, issued);
    // A bound subject token is exchanged only with a proof by its key (RFC 9449 §4.3).
    const proof = await dpop({ token: fields.subject_token, claims: privateToken });
    const exchanged = await asGrantError(() =>
      issuePublicToken(ctx, {
        spaceId,
        customerId,
        segmentId,
        privateToken,
        metadata,
        dpop: proof,
        bindTo: fields.dpop_jkt,
        scopes: requestedScopes(fields.scope),
        ...(fields.may_act === undefined ? {} : { mayAct: fields.may_act }),
        authorizationDetails: fields.authorization_details,
      }),
    );
    return tokenResponse(exchanged, true);
  },
});

/** The customer and segment a plain exchange buys for: required unless delegating. */
function requireCustomer(fields: {
  readonly customer_id?: string | undefined;
  readonly segment_id?: string | undefined;
}): { customer_id: string; segment_id: string } {
  const missing = (['customer_id', 'segment_id'] as const).filter((f) => fields[f] === undefined);
  if (missing.length > 0) {
    // Worded as the schema's own problems are (src/http/validate.ts).
    throw new InvalidRequestError(
      `body is invalid: ${missing.map((field) => `${field}: is required`).join('; ')}`,
      missing.map((field) => ({ field, message: 'is required' })),
    );
  }
  return { customer_id: fields.customer_id!, segment_id: fields.segment_id! };
}
