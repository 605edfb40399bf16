import { z } from 'zod';
import { judgeAuthorizationRequest, requestedClientId } from '#oauth-authorize/request.js';
import { codeResponse, errorResponse } from '#oauth-authorize/response.js';
import { spaceIssuer } from '#verifier/issuer-keys.js';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';
import type { CommandContext } from '../../commands/context.js';
import { authorizationApp } from '../../commands/authorization/app.js';
import {
  acceptAuthorization,
  codeFlowClient,
  issueAuthorizationCode,
  newBrowserBinding,
  readAuthorization,
  rejectAuthorization,
  startAuthorization,
} from '../../commands/authorization/steps.js';
import { clientActor } from '../../domain/actors.js';
import { scopeListSchema } from '../../domain/event-data/credential.js';
import { mayTarget } from '../../domain/policy.js';
import { InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { requestMetadata } from '../request-context.js';
import { answerNoStore } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';

const spacePath = z.object({ space_id: z.string().min(1).max(100) });
const requestPath = z.object({ request_id: z.string().min(1).max(64) });
const resumeQuery = z.object({ authorization_request: z.string().min(1).max(64) });
const redirectTo = z.object({ redirect_to: z.string() });
const acceptBody = z.object({
  customer_id: z.string().min(1).max(256),
  segment_id: z.string().min(1).max(256),
  /** What the customer granted: some of the scopes asked; absent: all of them. */
  scope: scopeListSchema.optional(),
  authorization_details: authorizationDetailsSchema.optional(),
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

/** The cookie that binds a request to the browser that started it (as Hydra's CSRF cookie does). */
const cookieName = (requestId: string) => `ta_authz_${requestId}`;

/**
 * The authorization endpoint, headless (issue 64): the service checks the request and records it,
 * the storefront's own page signs the customer in and decides through its server, and the code
 * reaches only the browser that started the request. Per space, under the space's issuer.
 */
export function authorizeRoutes(commands: CommandContext, issuer: string): readonly Route[] {
  if (!commands.authorizations) return [];
  const issuerOf = (spaceId: string) => spaceIssuer(issuer, spaceId);
  const endpoint = (spaceId: string) => `${issuerOf(spaceId)}/authorize`;
  return [
    route('get', '/spaces/:space_id/authorize', 'public', {
      tag: 'Authorization',
      operationId: 'authorize',
      summary:
        'OAuth 2.1 authorization endpoint: code flow with PKCE (S256) for client ID metadata documents',
      params: spacePath,
      responses: [
        { status: 302, description: 'To the storefront, or to the client with an error' },
      ],
      errors: ['not_found', 'invalid_request'],
      async handle(ctx, _auth, { params: { space_id: spaceId } }) {
        const query = new URLSearchParams(ctx.querystring);
        const named = requestedClientId(query);
        if ('kind' in named) throw new InvalidRequestError(named.description);
        const app = await authorizationApp(commands, spaceId);
        if (!app) throw new NotFoundError('this space takes no authorization requests');
        const client = await codeFlowClient(commands, spaceId, named.clientId);
        if ('refused' in client) throw new InvalidRequestError(client.refused);
        const judged = judgeAuthorizationRequest(query, client);
        if (judged.kind === 'shown') throw new InvalidRequestError(judged.description);
        const iss = issuerOf(spaceId);
        if (judged.kind === 'redirected') {
          ctx.redirect(errorResponse(judged.redirectUri, { ...judged, iss }));
          return;
        }
        const { request } = judged;
        const resource = request.resource ?? commands.audiences[0]!;
        if (!commands.audiences.some((audience) => mayTarget({ aud: audience }, resource))) {
          const description = 'resource is not an audience of this service';
          ctx.redirect(
            errorResponse(request.redirectUri, {
              error: 'invalid_target',
              description,
              state: request.state,
              iss,
            }),
          );
          return;
        }
        const { secret, digest } = newBrowserBinding();
        const { requestId } = await startAuthorization(commands, {
          spaceId,
          request,
          browser: digest,
          metadata: { actor: clientActor(request.clientId), ...requestMetadata(ctx) },
        });
        const path = new URL(endpoint(spaceId)).pathname;
        const secure = issuer.startsWith('https:') ? '; Secure' : '';
        ctx.append(
          'Set-Cookie',
          `${cookieName(requestId)}=${secret}; Path=${path}; Max-Age=600; HttpOnly; SameSite=Lax${secure}`,
        );
        const interaction = new URL(app);
        interaction.searchParams.set('authorization_request', requestId);
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(interaction.href);
      },
    }),
    route('get', '/spaces/:space_id/authorize/resume', 'public', {
      tag: 'Authorization',
      operationId: 'resumeAuthorization',
      summary: 'The browser back from the storefront: the code, for the browser that asked only',
      params: spacePath,
      query: resumeQuery,
      responses: [{ status: 302, description: 'To the client with the code, its state and iss' }],
      errors: ['not_found', 'invalid_request', 'conflict'],
      async handle(ctx, _auth, { params: { space_id: spaceId }, query }) {
        const requestId = query.authorization_request;
        const browser = ctx.cookies.get(cookieName(requestId));
        if (!browser) {
          throw new InvalidRequestError(
            'this authorization request was started in another browser',
          );
        }
        const { code, request } = await issueAuthorizationCode(commands, {
          spaceId,
          requestId,
          browser,
          metadata: { actor: clientActor(`browser:${requestId}`), ...requestMetadata(ctx) },
        });
        const { redirect_uri: redirectUri, state } = request.asked;
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(codeResponse(redirectUri, { code, state, iss: issuerOf(spaceId) }));
      },
    }),
    ...storefrontRoutes(commands, issuerOf),
  ];
}

/** What the storefront's server does with a request: read it, accept it for a customer, reject it. */
function storefrontRoutes(
  commands: CommandContext,
  issuerOf: (spaceId: string) => string,
): readonly Route[] {
  const path = '/v1/authorization-requests/:request_id';
  const common = { tag: 'Authorization', params: requestPath } as const;
  const who = (ctx: RequestContext, privateToken: { space_id: string }, actor: string) => ({
    spaceId: privateToken.space_id,
    metadata: { actor, ...requestMetadata(ctx) },
  });
  return [
    route('get', path, 'private-token', {
      ...common,
      operationId: 'readAuthorizationRequest',
      summary: 'An authorization request as the client asked it, for the consent page',
      responses: [{ status: 200, description: 'The request', schema: requestView }],
      errors: ['not_found'],
      async handle(ctx, { privateToken }, { params: { request_id: requestId } }) {
        const state = await readAuthorization(commands, privateToken.space_id, requestId);
        const { asked } = state;
        const document = await commands.metadataClients?.documents
          .clientAt(asked.client_id, { spaceId: state.spaceId, held: true })
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
          resource: asked.resource ?? commands.audiences[0]!,
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
      errors: ['not_found', 'conflict', 'invalid_scope'],
      async handle(ctx, { privateToken, actor }, { params, body }) {
        const step = { ...who(ctx, privateToken, actor), requestId: params.request_id };
        const asked = await readAuthorization(commands, step.spaceId, step.requestId);
        await acceptAuthorization(commands, {
          ...step,
          customerId: body.customer_id,
          segmentId: body.segment_id,
          scopes: body.scope ?? asked.asked.scopes,
          authorizationDetails: body.authorization_details,
          acceptedBy: privateToken.client_id,
          parentJti: privateToken.jti,
        });
        const resume = new URL(`${issuerOf(step.spaceId)}/authorize/resume`);
        resume.searchParams.set('authorization_request', step.requestId);
        answerNoStore(ctx, { redirect_to: resume.href } satisfies z.infer<typeof redirectTo>);
      },
    }),
    route('post', `${path}/reject`, 'private-token', {
      ...common,
      operationId: 'rejectAuthorizationRequest',
      summary: 'Reject: where the browser goes next, the client told access_denied',
      body: { schema: rejectBody, media: ['json'] },
      responses: [{ status: 200, description: 'Send the browser there', schema: redirectTo }],
      errors: ['not_found', 'conflict'],
      async handle(ctx, { privateToken, actor }, { params, body }) {
        const step = { ...who(ctx, privateToken, actor), requestId: params.request_id };
        const { state } = await rejectAuthorization(commands, { ...step, ...body });
        const { redirect_uri: redirectUri, state: clientState } = state!.asked;
        const iss = issuerOf(step.spaceId);
        const to = errorResponse(redirectUri, {
          error: 'access_denied',
          description: 'the customer did not allow it',
          state: clientState,
          iss,
        });
        answerNoStore(ctx, { redirect_to: to } satisfies z.infer<typeof redirectTo>);
      },
    }),
  ];
}
