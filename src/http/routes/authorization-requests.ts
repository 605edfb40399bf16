import { z } from 'zod';
import { errorResponse } from '#oauth-authorize/response.js';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';
import { scopeWords } from '#verifier/scope.js';
import type { CommandContext } from '../../commands/context.js';
import {
  acceptAuthorization,
  readAuthorization,
  rejectAuthorization,
} from '../../commands/authorization/steps.js';
import { listConsents, revokeConsent } from '../../commands/authorization/consents.js';
import { CONSENT_MAX_TTL_SECONDS } from '../../domain/policy.js';
import { resourceOf } from '../../commands/token/delegated/authorization-code.js';
import type { PrivateTokenClaims } from '../../crypto/access-tokens.js';
import { scopeListSchema } from '../../domain/event-data/credential.js';
import { requestMetadata } from '../request-context.js';
import { answerNoStore } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';

/** A request's id as the service makes them: anything else is no request (and no cookie read). */
export const requestIdSchema = z
  .string()
  .regex(/^ar_[A-Za-z0-9_-]{22}$/, 'an authorization request id (ar_…)');

const requestPath = z.object({ request_id: requestIdSchema });
const redirectTo = z.object({ redirect_to: z.string() });
const acceptBody = z.object({
  customer_id: z.string().min(1).max(256),
  segment_id: z.string().min(1).max(256),
  /** What the customer granted: some of the scopes asked; absent: all of them. */
  scope: scopeListSchema.optional(),
  authorization_details: authorizationDetailsSchema.optional(),
  /** The consent's life in seconds: its refresh tokens end with it (default 30 days, at most a year). */
  expires_in: z.number().int().min(60).max(CONSENT_MAX_TTL_SECONDS).optional(),
});
const rejectBody = z.object({ description: z.string().max(500).optional() });
const requestView = z.object({
  request_id: z.string(),
  status: z.string(),
  expires_at: z.number(),
  /** All the client's own words: shown as what it says of itself, never as ours. */
  client: z.object({
    client_id: z.string(),
    client_name: z.string().optional(),
    logo_uri: z.string().optional(),
    client_uri: z.string().optional(),
  }),
  redirect_uri: z.string(),
  scopes: z.array(z.string()),
  resource: z.string(),
  authorization_details: authorizationDetailsSchema.optional(),
});

const consentsQuery = z.object({ customer_id: z.string().min(1).max(256) });
const consentPath = z.object({ consent_id: requestIdSchema });
const revoked = z.object({ revoked: z.literal(true) });
const consentList = z.object({
  consents: z.array(
    z.object({
      /** The authorization request's id, which every token the consent bought names. */
      consent_id: z.string(),
      client_id: z.string(),
      customer_id: z.string(),
      segment_id: z.string(),
      resource: z.string(),
      scopes: z.array(z.string()),
      authorization_details: authorizationDetailsSchema.optional(),
      expires_at: z.number(),
    }),
  ),
});

/** The storefront's private token as the one giving consent. */
const storefrontOf = (token: PrivateTokenClaims) => ({
  clientId: token.client_id,
  jti: token.jti,
  audience: token.aud,
  scopes: scopeWords(token.scope),
});

/**
 * What the storefront's server does with a request (its private token, of the request's space, a
 * registered credential's): read it, accept it for a customer, or reject it.
 */
export function authorizationRequestRoutes(
  commands: CommandContext,
  issuerOf: (spaceId: string) => string,
): readonly Route[] {
  const path = '/v1/authorization-requests/:request_id';
  const common = { tag: 'Authorization', params: requestPath } as const;
  const who = (ctx: RequestContext, token: PrivateTokenClaims, actor: string, id: string) => ({
    spaceId: token.space_id,
    requestId: id,
    storefront: storefrontOf(token),
    metadata: { actor, ...requestMetadata(ctx) },
  });
  return [
    route('get', path, 'private-token', {
      ...common,
      operationId: 'readAuthorizationRequest',
      summary: 'An authorization request as the client asked it, for the consent page',
      responses: [{ status: 200, description: 'The request', schema: requestView }],
      errors: ['not_found', 'insufficient_scope'],
      async handle(ctx, { privateToken }, { params: { request_id: requestId } }) {
        const storefront = storefrontOf(privateToken);
        const spaceId = privateToken.space_id;
        const state = await readAuthorization(commands, spaceId, requestId, storefront);
        const { asked } = state;
        const document = await commands.metadataClients?.documents
          .clientAt(asked.client_id, { spaceId, held: true })
          .catch(() => undefined);
        const about = document?.about ?? {};
        answerNoStore(ctx, {
          request_id: requestId,
          status: state.status,
          expires_at: asked.expires_at,
          client: {
            client_id: asked.client_id,
            ...(about.name === undefined ? {} : { client_name: about.name }),
            ...(about.logoUri === undefined ? {} : { logo_uri: about.logoUri }),
            ...(about.clientUri === undefined ? {} : { client_uri: about.clientUri }),
          },
          redirect_uri: asked.redirect_uri,
          scopes: asked.scopes,
          resource: resourceOf(commands, asked.resource),
          ...(asked.authorization_details
            ? { authorization_details: asked.authorization_details }
            : {}),
        } satisfies z.infer<typeof requestView>);
      },
    }),
    route('post', `${path}/accept`, 'private-token', {
      ...common,
      operationId: 'acceptAuthorizationRequest',
      summary: 'Accept for a customer and segment: where the browser goes next to get its code',
      body: { schema: acceptBody, media: ['json'] },
      responses: [{ status: 200, description: 'Send the browser there', schema: redirectTo }],
      errors: ['not_found', 'conflict', 'invalid_scope', 'invalid_target', 'insufficient_scope'],
      async handle(ctx, { privateToken, actor }, { params, body }) {
        const step = who(ctx, privateToken, actor, params.request_id);
        const { spaceId, requestId, storefront } = step;
        const { asked } = await readAuthorization(commands, spaceId, requestId, storefront);
        const { resume } = await acceptAuthorization(commands, {
          ...step,
          customerId: body.customer_id,
          segmentId: body.segment_id,
          scopes: body.scope ?? asked.scopes,
          authorizationDetails: body.authorization_details,
          resource: resourceOf(commands, asked.resource),
          consentSeconds: body.expires_in,
        });
        const to = new URL(`${issuerOf(spaceId)}/authorize/resume`);
        to.searchParams.set('authorization_request', requestId);
        to.searchParams.set('resume', resume);
        answerNoStore(ctx, { redirect_to: to.href } satisfies z.infer<typeof redirectTo>);
      },
    }),
    route('post', `${path}/reject`, 'private-token', {
      ...common,
      operationId: 'rejectAuthorizationRequest',
      summary: 'Reject: where the browser goes next, the client told access_denied',
      body: { schema: rejectBody, media: ['json'] },
      responses: [{ status: 200, description: 'Send the browser there', schema: redirectTo }],
      errors: ['not_found', 'conflict', 'insufficient_scope'],
      async handle(ctx, { privateToken, actor }, { params, body }) {
        const step = who(ctx, privateToken, actor, params.request_id);
        const { state } = await rejectAuthorization(commands, { ...step, ...body });
        const { redirect_uri: redirectUri, state: clientState } = state!.asked;
        const to = errorResponse(redirectUri, {
          error: 'access_denied',
          description: 'the customer did not allow it',
          state: clientState,
          iss: issuerOf(step.spaceId),
        });
        answerNoStore(ctx, { redirect_to: to } satisfies z.infer<typeof redirectTo>);
      },
    }),
    route('get', '/v1/consents', 'private-token', {
      tag: 'Authorization',
      operationId: 'listConsents',
      summary:
        "A customer's standing consents in the token's space: which agent may do what, until when",
      query: consentsQuery,
      responses: [{ status: 200, description: 'The consents', schema: consentList }],
      errors: ['invalid_request', 'insufficient_scope'],
      async handle(ctx, { privateToken }, { query }) {
        const spaceId = privateToken.space_id;
        const storefront = storefrontOf(privateToken);
        const consents = await listConsents(commands, spaceId, query.customer_id, storefront);
        answerNoStore(ctx, {
          consents: consents.map((consent) => ({
            consent_id: consent.consentId,
            client_id: consent.clientId,
            customer_id: consent.customerId,
            segment_id: consent.segmentId,
            resource: resourceOf(commands, consent.resource),
            scopes: [...consent.scopes],
            ...(consent.authorizationDetails
              ? { authorization_details: consent.authorizationDetails as never }
              : {}),
            expires_at: consent.expiresAt,
          })),
        } satisfies z.infer<typeof consentList>);
      },
    }),
    route('post', '/v1/consents/:consent_id/revoke', 'private-token', {
      tag: 'Authorization',
      operationId: 'revokeConsent',
      summary:
        'Withdraw a consent: its refresh token and every access token it bought stop working',
      params: consentPath,
      responses: [{ status: 200, description: 'Withdrawn (or already void)', schema: revoked }],
      errors: ['invalid_request', 'not_found', 'insufficient_scope'],
      async handle(ctx, { privateToken, actor }, { params }) {
        await revokeConsent(commands, who(ctx, privateToken, actor, params.consent_id));
        answerNoStore(ctx, { revoked: true } satisfies z.infer<typeof revoked>);
      },
    }),
  ];
}
