import { z } from 'zod';
import { judgeAuthorizationRequest, requestedClientId } from '#oauth-authorize/request.js';
import { codeResponse, errorResponse } from '#oauth-authorize/response.js';
import { spaceIssuer } from '#verifier/issuer-keys.js';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';
import type { CommandContext } from '../../commands/context.js';
import { authorizationApp } from '../../commands/authorization/app.js';
import { codeFlowClient } from '../../commands/authorization/code-flow-client.js';
import {
  issueAuthorizationCode,
  newBrowserBinding,
  startAuthorization,
} from '../../commands/authorization/steps.js';
import { clientActor } from '../../domain/actors.js';
import { scopeListSchema } from '../../domain/event-data/credential.js';
import { mayTarget } from '../../domain/policy.js';
import {
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  TokenAuthorityError,
  UnavailableError,
} from '../../errors/errors.js';
import type { AuthorizationRequestRefusal as AuthorizeRefusal } from '../../domain/authorization-refusal/decide.js';
import { requestMetadata } from '../request-context.js';
import { storableTextProblem } from '../storable.js';
import { redirectBrowser } from '../respond.js';
import { route, type Route } from '../route.js';
import { resourceOf } from '../../commands/token/delegated/authorization-code.js';
import type { RequestContext } from '../state.js';
import { authorizationRequestRoutes, requestIdSchema } from './authorization-requests.js';

const spacePath = z.object({ space_id: z.string().min(1).max(100) });
const resumeQuery = z.object({
  authorization_request: requestIdSchema,
  resume: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'the secret the consent sent'),
});

/** The cookie that binds a request to the browser that started it (as Hydra's CSRF cookie does). */
const cookieName = (requestId: string) => `ta_authz_${requestId}`;

/**
 * The authorization endpoint, headless (issue 64): the service checks the request and records it,
 * the storefront's own page signs the customer in and decides through its server, and the code
 * reaches only the browser that started the request and came back from the consent. Per space,
 * under the space's issuer.
 */
export function authorizeRoutes(commands: CommandContext, issuer: string): readonly Route[] {
  if (!commands.authorizations) return [];
  const issuerOf = (spaceId: string) => spaceIssuer(issuer, spaceId);
  const cookie = (ctx: RequestContext, spaceId: string, requestId: string, value: string) => {
    const path = new URL(`${issuerOf(spaceId)}/authorize`).pathname;
    const secure = issuer.startsWith('https:') ? '; Secure' : '';
    const age = value === '' ? 0 : 600;
    const attributes = `Path=${path}; Max-Age=${age}; HttpOnly; SameSite=Lax${secure}`;
    ctx.append('Set-Cookie', `${cookieName(requestId)}=${value}; ${attributes}`);
  };
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
      errors: ['not_found', 'invalid_request', 'rate_limited'],
      async handle(ctx, _auth, { params: { space_id: spaceId } }) {
        const app = await authorizationApp(commands, spaceId);
        if (!app) throw new NotFoundError('this space takes no authorization requests');
        const query = new URLSearchParams(ctx.querystring);
        const refused = refusalOf(commands, ctx, spaceId, query.get('client_id'));
        const unstorable = [...query].flat().find((text) => storableTextProblem(text));
        if (unstorable !== undefined) {
          throw await refused.shown(`a parameter ${storableTextProblem(unstorable)!}`);
        }
        const named = requestedClientId(query);
        if ('kind' in named) throw await refused.shown(named.description);
        const client = await codeFlowClient(commands, spaceId, named.clientId, ctx.ip).catch(
          (error: unknown) => {
            if (error instanceof RateLimitedError) refused.limited();
            throw error;
          },
        );
        if ('refused' in client) throw await refused.shown(client.refused);
        const judged = judgeAuthorizationRequest(query, client);
        if (judged.kind === 'shown') throw await refused.shown(judged.description);
        const iss = issuerOf(spaceId);
        if (judged.kind === 'redirected') {
          await refused.redirected(judged);
          redirectBrowser(ctx, errorResponse(judged.redirectUri, { ...judged, iss }));
          return;
        }
        const { request } = judged;
        const refusal = serviceRefusal(commands, request);
        if (refusal) {
          await refused.redirected(refusal);
          const { state, redirectUri } = request;
          redirectBrowser(ctx, errorResponse(redirectUri, { ...refusal, state, iss }));
          return;
        }
        const { secret, digest } = newBrowserBinding();
        const { requestId } = await startAuthorization(commands, {
          spaceId,
          request,
          browser: digest,
          metadata: { actor: clientActor(request.clientId), ...requestMetadata(ctx) },
        });
        cookie(ctx, spaceId, requestId, secret);
        const interaction = new URL(app);
        interaction.searchParams.set('authorization_request', requestId);
        redirectBrowser(ctx, interaction.href);
      },
    }),
    route('get', '/spaces/:space_id/authorize/resume', 'public', {
      tag: 'Authorization',
      operationId: 'resumeAuthorization',
      summary:
        'The browser back from the consent: the code, for the browser that asked and consented only',
      params: spacePath,
      query: resumeQuery,
      responses: [{ status: 302, description: 'To the client with the code, its state and iss' }],
      errors: ['not_found', 'invalid_request', 'conflict'],
      async handle(ctx, _auth, { params: { space_id: spaceId }, query }) {
        const requestId = query.authorization_request;
        const browser = ctx.cookies.get(cookieName(requestId));
        // Recorded only where the space takes requests: no one grows a log for a space by asking.
        const refused = (await authorizationApp(commands, spaceId))
          ? refusalOf(commands, ctx, spaceId, null, requestId)
          : undefined;
        try {
          if (!browser) {
            throw new InvalidRequestError(
              'this authorization request was started in another browser',
            );
          }
          const { code, request } = await issueAuthorizationCode(commands, {
            spaceId,
            requestId,
            browser,
            resume: query.resume,
            metadata: { actor: clientActor(`browser:${requestId}`), ...requestMetadata(ctx) },
          });
          cookie(ctx, spaceId, requestId, '');
          const { redirect_uri: redirectUri, state } = request.asked;
          redirectBrowser(ctx, codeResponse(redirectUri, { code, state, iss: issuerOf(spaceId) }));
        } catch (error) {
          if (refused && error instanceof TokenAuthorityError && !busy(error)) {
            await refused.shown(error.message);
          }
          throw error;
        }
      },
    }),
    ...authorizationRequestRoutes(commands, issuerOf),
  ];
}

/**
 * `text` as an event may hold it: at most `max` characters, never a split pair, NUL as U+FFFD
 * (one request's bytes must never fail the batch its event is written in).
 */
const storable = (text: string, max: number) =>
  text.slice(0, max).toWellFormed().replaceAll('\u0000', '\uFFFD');

/** Answered 429 or 503: the service's state, not the request's fault. */
const busy = (error: Error) =>
  error instanceof RateLimitedError || error instanceof UnavailableError;

/**
 * How a refusal of a request to `spaceId` is recorded (`authorization-request-refused`, budgeted)
 * before it is answered: shown to the browser (thrown as 400), or sent to the client's redirect_uri.
 */
function refusalOf(
  commands: Pick<CommandContext, 'authorizationRefusals'>,
  ctx: RequestContext,
  spaceId: string,
  sentClientId: string | null,
  requestId?: string,
) {
  const clientId = sentClientId === null ? null : storable(sentClientId, 512);
  const record = (error: AuthorizeRefusal['error'], description: string, redirected: boolean) =>
    commands.authorizationRefusals.refused(
      spaceId,
      {
        client_id: clientId,
        error,
        description: storable(description, 500),
        redirected,
        ...(requestId === undefined ? {} : { request_id: requestId }),
      },
      { actor: 'anonymous', ...requestMetadata(ctx) },
    );
  return {
    async shown(description: string) {
      await record('invalid_request', description, false);
      return new InvalidRequestError(description);
    },
    redirected: (refusal: Pick<AuthorizeRefusal, 'error' | 'description'>) =>
      record(refusal.error, refusal.description, true),
    limited: () => commands.authorizationRefusals.limited(spaceId, clientId, ctx.ip),
  };
}

/**
 * What the service refuses of a request the protocol allows, sent back to the client: a resource
 * not one of its audiences (RFC 8707), scopes or details beyond what any event may hold.
 */
function serviceRefusal(
  commands: Pick<CommandContext, 'audiences'>,
  request: {
    readonly resource?: string;
    readonly scopes: readonly string[];
    readonly authorizationDetails?: unknown;
  },
) {
  const resource = resourceOf(commands, request.resource);
  if (!commands.audiences.some((audience) => mayTarget({ aud: audience }, resource))) {
    return {
      error: 'invalid_target',
      description: 'resource is not an audience of this service',
    } as const;
  }
  if (!scopeListSchema.safeParse(request.scopes).success) {
    return { error: 'invalid_scope', description: 'too many scopes, or one too long' } as const;
  }
  const details = request.authorizationDetails;
  if (details !== undefined && !authorizationDetailsSchema.safeParse(details).success) {
    const description = 'authorization_details: 1 to 8 objects, each with a type, not too long';
    return { error: 'invalid_authorization_details', description } as const;
  }
  return undefined;
}
