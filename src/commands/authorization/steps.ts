import { randomBytes } from 'node:crypto';
import type { AuthorizationRequest } from '#oauth-authorize/request.js';
import { newCode, newSecret } from '#oauth-authorize/secrets.js';
import { accept } from '../../domain/decision.js';
import {
  decideAccept,
  decideCode,
  decideReject,
  refusedAs,
  type AuthorizationRefusal,
  type AuthorizationRequestState,
  type Storefront,
} from '../../domain/authorization/decide.js';
import { commandEvent, type EventMetadata } from '../../domain/events.js';
import {
  CONSENT_TTL_SECONDS,
  AUTHORIZATION_CODE_TTL_SECONDS,
  AUTHORIZATION_REQUEST_TTL_SECONDS,
  mayGiveConsent,
  ownedBySpace,
} from '../../domain/policy.js';
import { secondsOf } from '../../domain/times.js';
import {
  ConflictError,
  InsufficientScopeError,
  InvalidRequestError,
  InvalidTargetError,
  InvalidScopeError,
  NotFoundError,
} from '../../errors/errors.js';
import type { Refusals } from '../handle.js';
import { onRequest, readRequest, type AuthorizationPorts, type RequestStep } from './requests.js';

/** Records a judged request; the browser's cookie digest binds its code to this browser. */
export async function startAuthorization(
  ctx: AuthorizationPorts,
  command: {
    readonly spaceId: string;
    readonly request: AuthorizationRequest;
    readonly browser: string;
    readonly metadata: EventMetadata;
  },
): Promise<{ readonly requestId: string }> {
  // 128 random bits: a code names its request alone, read across every space by this id.
  const requestId = `ar_${randomBytes(16).toString('base64url')}`;
  const now = secondsOf(ctx.clock.now());
  const { request } = command;
  const step = { ...command, requestId, now, eventId: ctx.ids.eventId() };
  await onRequest(
    ctx,
    step,
    () =>
      accept([
        commandEvent(step, 'authorization-requested', {
          request_id: requestId,
          client_id: request.clientId,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          scopes: [...request.scopes],
          ...(request.state === undefined ? {} : { state: request.state }),
          ...(request.resource === undefined ? {} : { resource: request.resource }),
          ...(request.authorizationDetails
            ? { authorization_details: request.authorizationDetails as never }
            : {}),
          browser: command.browser,
          expires_at: now + AUTHORIZATION_REQUEST_TTL_SECONDS,
        }),
      ]),
    REFUSED,
  );
  return { requestId };
}

const NOT_A_STEP = () => new InvalidRequestError('not a step of this request');

/** What the storefront and the browser hear of a step refused. */
// The code and refresh refusals are the token endpoint's own: never met by a step here.
export const REFUSED: Refusals<AuthorizationRefusal, object> = refusedAs(NOT_A_STEP, {
  not_found: () => new NotFoundError('no authorization request of that id in this space'),
  expired: () =>
    new ConflictError('the authorization request has expired: the client must start again'),
  decided: () => new ConflictError('the authorization request was already accepted or rejected'),
  widened: () =>
    new InvalidScopeError(
      'the grant may only hold scopes and authorization_details the client asked for',
    ),
  other_browser: () =>
    new InvalidRequestError('this authorization request was started in another browser'),
  not_accepted: () => new ConflictError('the authorization request has not been accepted'),
  not_storefront: () =>
    new InsufficientScopeError(
      "a client ID metadata document's client gives no consent: only a credential registered in this space does",
    ),
  own_request: () =>
    new InsufficientScopeError('a client does not consent to its own authorization request'),
  other_resource: () =>
    new InvalidTargetError(
      'resource',
      "is not the audience of this private token: accept with a token for the request's resource",
    ),
});

/** A step's common part: the request in the space, now, a fresh event id, who asked. */
export function stepOf(
  ctx: AuthorizationPorts,
  ask: { readonly spaceId: string; readonly requestId: string; readonly metadata: EventMetadata },
): RequestStep {
  return { ...ask, now: secondsOf(ctx.clock.now()), eventId: ctx.ids.eventId() };
}

/** The request as the storefront reads it, if it is of its space. */
export async function readAuthorization(
  ctx: AuthorizationPorts,
  spaceId: string,
  requestId: string,
  storefront: Pick<Storefront, 'clientId'>,
): Promise<AuthorizationRequestState> {
  if (!mayGiveConsent(storefront.clientId)) throw REFUSED.not_storefront({});
  const state = await readRequest(ctx, requestId);
  if (!state || !ownedBySpace(state, spaceId)) throw REFUSED.not_found({});
  return state;
}

/**
 * The storefront accepts for a customer (`authorization-accepted`): the secret the browser is sent
 * back with, handed out here once (its digest kept).
 */
export async function acceptAuthorization(
  ctx: AuthorizationPorts,
  ask: Parameters<typeof stepOf>[1] &
    Omit<Parameters<typeof decideAccept>[0], keyof RequestStep | 'resume' | 'consentSeconds'> & {
      readonly consentSeconds?: number | undefined;
    },
): Promise<{ readonly resume: string }> {
  const { secret, digest } = newSecret();
  const consentSeconds = ask.consentSeconds ?? CONSENT_TTL_SECONDS;
  const command = { ...ask, ...stepOf(ctx, ask), resume: digest, consentSeconds };
  await onRequest(ctx, command, decideAccept, REFUSED);
  return { resume: secret };
}

/** The storefront refuses (`authorization-rejected`). */
export function rejectAuthorization(
  ctx: AuthorizationPorts,
  ask: Parameters<typeof stepOf>[1] & {
    readonly description?: string | undefined;
    readonly storefront: Storefront;
  },
) {
  return onRequest(ctx, { ...ask, ...stepOf(ctx, ask) }, decideReject, REFUSED);
}

/** The browser is back: a code for it (`authorization-code-issued`), handed out once. */
export async function issueAuthorizationCode(
  ctx: AuthorizationPorts,
  ask: Parameters<typeof stepOf>[1] & { readonly browser: string; readonly resume: string },
): Promise<{ readonly code: string; readonly request: AuthorizationRequestState }> {
  const { code, digest } = newCode(ask.requestId);
  const command = {
    ...ask,
    ...stepOf(ctx, ask),
    code: digest,
    codeTtl: AUTHORIZATION_CODE_TTL_SECONDS,
  };
  const { state } = await onRequest(ctx, command, decideCode, REFUSED);
  return { code, request: state! };
}

/** A browser's cookie: a secret for it, its digest for the log. */
export const newBrowserBinding = newSecret;
