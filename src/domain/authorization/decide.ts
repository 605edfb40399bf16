import { secretMatches } from '#oauth-authorize/secrets.js';
import type { AuthorizationDetails } from '#verifier/actor-claim.js';
import { accept, refuse, type Decision } from '../decision.js';
import { commandEvent, type Asked, type DomainEvent, type EventData } from '../events.js';
import {
  RETIRED_REFRESH_KEPT,
  grantedWithinAsked,
  mayConsentTo,
  mayGiveConsent,
  mayTarget,
  ownedBySpace,
} from '../policy.js';

/** An authorization request as its events leave it. */
export interface AuthorizationRequestState {
  readonly spaceId: string;
  readonly asked: EventData<'authorization-requested'>;
  readonly status:
    'pending' | 'accepted' | 'rejected' | 'code-issued' | 'redeemed' | 'replayed' | 'revoked';
  readonly consent?: EventData<'authorization-accepted'>;
  /** The last code handed out: its digest and end. */
  readonly code?: { readonly digest: string; readonly expiresAt: number };
  /** The refresh token that stands now, its DPoP key, and the last ones it replaced. */
  readonly refresh?: {
    readonly digest: string;
    readonly jkt?: string | undefined;
    readonly retired: readonly string[];
  };
}

export type AuthorizationEvent = DomainEvent<
  | 'authorization-requested'
  | 'authorization-accepted'
  | 'authorization-rejected'
  | 'authorization-code-issued'
  | 'authorization-code-redeemed'
  | 'authorization-code-replayed'
  | 'authorization-refreshed'
  | 'authorization-refresh-reused'
  | 'authorization-refresh-undone'
  | 'authorization-consent-revoked'
>;

/** The state after `event` (a request's first event makes it). */
export function evolveAuthorization(
  state: AuthorizationRequestState | undefined,
  event: { readonly type: AuthorizationEvent['type']; readonly data: unknown; spaceId: string },
): AuthorizationRequestState | undefined {
  const data = event.data as never;
  if (event.type === 'authorization-requested') {
    return { spaceId: event.spaceId, asked: data, status: 'pending' };
  }
  if (!state) return state;
  switch (event.type) {
    case 'authorization-accepted':
      return { ...state, status: 'accepted', consent: data };
    case 'authorization-rejected':
      return { ...state, status: 'rejected' };
    case 'authorization-code-issued': {
      const { code, expires_at } = data as EventData<'authorization-code-issued'>;
      return { ...state, status: 'code-issued', code: { digest: code, expiresAt: expires_at } };
    }
    case 'authorization-code-redeemed': {
      const { refresh, jkt } = data as EventData<'authorization-code-redeemed'>;
      return {
        ...state,
        status: 'redeemed',
        ...(refresh ? { refresh: { digest: refresh, jkt, retired: [] } } : {}),
      };
    }
    case 'authorization-refreshed': {
      const { refresh } = data as EventData<'authorization-refreshed'>;
      const before = state.refresh!;
      const retired = [before.digest, ...before.retired].slice(0, RETIRED_REFRESH_KEPT);
      return { ...state, refresh: { ...before, digest: refresh, retired } };
    }
    case 'authorization-refresh-undone': {
      const [before, ...older] = state.refresh!.retired;
      return { ...state, refresh: { ...state.refresh!, digest: before!, retired: older } };
    }
    case 'authorization-consent-revoked':
      return { ...state, status: 'revoked' };
    default:
      return { ...state, status: 'replayed' };
  }
}

/** What refuses a step of a request, each answered by its command's error. */
export const AUTHORIZATION_REFUSALS = [
  'not_storefront',
  'own_request',
  'other_resource',
  'not_found',
  'expired',
  'decided',
  'widened',
  'other_browser',
  'not_accepted',
  'bad_code',
  'code_replayed',
  'bad_refresh',
  'other_key',
  'consent_ended',
  'refresh_reused',
] as const;
export type AuthorizationRefusal = (typeof AUTHORIZATION_REFUSALS)[number];

/** Every refusal answered by `fallback` but those a command says more of. */
export function refusedAs<Error>(
  fallback: () => Error,
  own: Partial<Record<AuthorizationRefusal, () => Error>>,
): Record<AuthorizationRefusal, () => Error> {
  const all = Object.fromEntries(AUTHORIZATION_REFUSALS.map((refusal) => [refusal, fallback]));
  return { ...all, ...own } as Record<AuthorizationRefusal, () => Error>;
}

export type Step = Asked & {
  readonly spaceId: string;
  readonly requestId: string;
  readonly now: number;
};

/** The request, if it is of this space; expired ones are answered as expired, not as absent. */
function live(state: AuthorizationRequestState | undefined, { spaceId, now }: Step) {
  if (!state || !ownedBySpace(state, spaceId)) return refuse('not_found' as const);
  if (now >= state.asked.expires_at) return refuse('expired' as const);
  return undefined;
}

/** The storefront's private token a consent is given with: what it may grant, and for what. */
export interface Storefront {
  readonly clientId: string;
  readonly jti: string;
  readonly audience: string;
  readonly scopes: readonly string[];
}

/**
 * The storefront accepts for a customer: at most what was asked and what its own token holds,
 * for its token's audience, once (as /v1/issue would buy the customer's token).
 */
export function decideAccept(
  command: Step & {
    readonly customerId: string;
    readonly segmentId: string;
    readonly scopes: readonly string[];
    readonly authorizationDetails?: AuthorizationDetails | undefined;
    readonly storefront: Storefront;
    /** The resource the request asked for, or the service's first audience. */
    readonly resource: string;
    /** The digest of the secret the browser carries back: the consent's own half of the code. */
    readonly resume: string;
    /** The consent's life (policy bounds it), from now. */
    readonly consentSeconds: number;
  },
  state: AuthorizationRequestState | undefined,
): Decision<AuthorizationEvent, AuthorizationRefusal> {
  const { storefront, scopes, authorizationDetails } = command;
  if (!mayGiveConsent(storefront.clientId)) return refuse('not_storefront');
  const refused = live(state, command);
  if (refused) return refused;
  if (state!.status !== 'pending') return refuse('decided');
  if (!mayConsentTo(storefront.clientId, state!.asked.client_id)) return refuse('own_request');
  if (!mayTarget({ aud: storefront.audience }, command.resource)) return refuse('other_resource');
  const asked = { scopes: state!.asked.scopes, details: state!.asked.authorization_details };
  if (
    !grantedWithinAsked(asked, { scopes, details: authorizationDetails }) ||
    !grantedWithinAsked({ scopes: storefront.scopes }, { scopes })
  ) {
    return refuse('widened');
  }
  return accept([
    commandEvent(command, 'authorization-accepted', {
      request_id: command.requestId,
      customer_id: command.customerId,
      segment_id: command.segmentId,
      scopes: [...scopes],
      ...(authorizationDetails ? { authorization_details: authorizationDetails } : {}),
      accepted_by: storefront.clientId,
      parent_jti: storefront.jti,
      resume: command.resume,
      expires_at: command.now + command.consentSeconds,
    }),
  ]);
}

/** The storefront refuses: the client hears access_denied. */
export function decideReject(
  command: Step & { readonly description?: string | undefined; readonly storefront: Storefront },
  state: AuthorizationRequestState | undefined,
): Decision<AuthorizationEvent, AuthorizationRefusal> {
  if (!mayGiveConsent(command.storefront.clientId)) return refuse('not_storefront');
  const refused = live(state, command);
  if (refused) return refused;
  if (state!.status !== 'pending') return refuse('decided');
  const { description } = command;
  return accept([
    commandEvent(command, 'authorization-rejected', {
      request_id: command.requestId,
      ...(description === undefined ? {} : { description }),
    }),
  ]);
}

/**
 * The browser is back: a code, only for the browser that started the request (its cookie) and
 * was sent back by the consent (the resume secret the accept handed out), so neither the browser
 * that asked nor the one that consented gets it alone. Again (a reload) a new code replaces the
 * last one until one is redeemed.
 */
export function decideCode(
  command: Step & {
    readonly browser: string;
    readonly resume: string;
    readonly code: string;
    readonly codeTtl: number;
  },
  state: AuthorizationRequestState | undefined,
): Decision<AuthorizationEvent, AuthorizationRefusal> {
  const refused = live(state, command);
  if (refused) return refused;
  if (!secretMatches(command.browser, state!.asked.browser)) return refuse('other_browser');
  if (state!.status !== 'accepted' && state!.status !== 'code-issued') {
    return refuse('not_accepted');
  }
  if (!secretMatches(command.resume, state!.consent!.resume)) return refuse('other_browser');
  return accept([
    commandEvent(command, 'authorization-code-issued', {
      request_id: command.requestId,
      code: command.code,
      expires_at: Math.min(command.now + command.codeTtl, state!.asked.expires_at),
    }),
  ]);
}
