import { secretMatches } from '#oauth-authorize/secrets.js';
import { verifierMatches } from '#oauth-authorize/pkce.js';
import { accept, refuse, type Decision } from '../decision.js';
import { commandEvent } from '../events.js';
import {
  consentVoided,
  grantedWithinAsked,
  issuedTo,
  mayGiveConsent,
  ownedBySpace,
} from '../policy.js';
import type {
  AuthorizationEvent,
  AuthorizationRefusal,
  AuthorizationRequestState,
  Step,
  Storefront,
} from './decide.js';

/** A decision on a consent's grant: its events, and the request the token is issued on. */
type OnConsent = Decision<
  AuthorizationEvent,
  AuthorizationRefusal,
  { readonly request: AuthorizationRequestState }
>;

/**
 * The client redeems its code (OAuth 2.1 §4.1.3): the code's secret, its client, its redirect URI
 * and its PKCE verifier. A code already redeemed, presented again, revokes what it bought.
 */
export function decideRedeem(
  command: Omit<Step, 'spaceId'> & {
    readonly secret: string;
    readonly clientId: string;
    readonly redirectUri: string | undefined;
    readonly verifier: string;
    /** The refresh token's digest, and the DPoP key it is bound to when the client sent a proof. */
    readonly refresh: string;
    readonly jkt: string | undefined;
    /** A `resource` sent that is not the request's: said only to whoever holds the code. */
    readonly otherResource: boolean;
  },
  state: AuthorizationRequestState | undefined,
): OnConsent {
  const { code } = state ?? {};
  if (!state || !code || !secretMatches(command.secret, code.digest)) return refuse('bad_code');
  const { requestId } = command;
  const { asked } = state;
  // Its client with its verifier: only then is a second use a replay that revokes (a code seen in
  // a browser's history, with guesses at the rest, revokes nothing and is recorded in no name).
  const own =
    issuedTo({ clientId: asked.client_id }, command.clientId) &&
    verifierMatches(command.verifier, asked.code_challenge);
  if (!own) return refuse('bad_code');
  if (command.otherResource) return refuse('other_resource');
  if (state.status === 'redeemed') {
    return refuse('code_replayed', [
      commandEvent(command, 'authorization-code-replayed', { request_id: requestId }),
    ]);
  }
  const good =
    state.status === 'code-issued' &&
    command.now < code.expiresAt &&
    // RFC 6749 §4.1.3: the same when sent; PKCE binds the code to its request when not (OAuth 2.1).
    (command.redirectUri === undefined || command.redirectUri === asked.redirect_uri);
  if (!good) return refuse('bad_code');
  const redeemed = {
    request_id: requestId,
    refresh: command.refresh,
    ...(command.jkt === undefined ? {} : { jkt: command.jkt }),
  };
  return accept([commandEvent(command, 'authorization-code-redeemed', redeemed)], {
    request: state,
  });
}

/** When the consent ends (a consent from before refresh tokens: with its request). */
export const consentEndsAt = (state: AuthorizationRequestState) =>
  state.consent?.expires_at ?? state.asked.expires_at;

/**
 * The client refreshes (OAuth 2.1 §4.3): its refresh token, from its client, with the DPoP key it
 * redeemed the code with. The token is replaced by the next one (rotation); a retired one
 * presented again, by its client and key, is a reuse: someone else holds a copy, and the consent's
 * tokens are revoked (§4.3.1). Nothing outlives the consent.
 */
export function decideRefresh(
  command: Omit<Step, 'spaceId'> & {
    readonly secret: string;
    readonly clientId: string;
    readonly jkt: string | undefined;
    /** The next refresh token's digest. */
    readonly next: string;
    /** A `resource` sent that is not the consent's. */
    readonly otherResource: boolean;
    /** Some of the consent's scopes (RFC 6749 §6); undefined: all of them. */
    readonly scopes: readonly string[] | undefined;
  },
  state: AuthorizationRequestState | undefined,
): OnConsent {
  const { refresh } = state ?? {};
  if (!state || !refresh || !issuedTo({ clientId: state.asked.client_id }, command.clientId)) {
    return refuse('bad_refresh');
  }
  // The secret first: nothing of the consent is said to whoever knows only its id.
  const current = secretMatches(command.secret, refresh.digest);
  const retired = !current && refresh.retired.some((kept) => secretMatches(command.secret, kept));
  if (!current && !retired) return refuse('bad_refresh');
  // A copy without the key is no threat to the consent, and revokes nothing.
  if (refresh.jkt !== undefined && refresh.jkt !== command.jkt) return refuse('other_key');
  if (consentVoided(state)) return refuse('bad_refresh');
  if (command.now >= consentEndsAt(state)) return refuse('consent_ended');
  const request_id = command.requestId;
  if (retired) {
    return refuse('refresh_reused', [
      commandEvent(command, 'authorization-refresh-reused', { request_id }),
    ]);
  }
  if (command.otherResource) return refuse('other_resource');
  const { scopes } = command;
  if (scopes && !grantedWithinAsked(state.consent!, { scopes })) return refuse('widened');
  return accept(
    [commandEvent(command, 'authorization-refreshed', { request_id, refresh: command.next })],
    { request: state },
  );
}

/**
 * A refresh whose token could not be issued after its refresh token was replaced (a budget, the
 * database): the replaced one stands again, so the client's retry with it is no reuse. Nobody
 * holds the replacement: it was never handed out.
 */
export function decideUndoRefresh(
  command: Omit<Step, 'spaceId'> & { readonly next: string },
  state: AuthorizationRequestState | undefined,
): Decision<AuthorizationEvent, AuthorizationRefusal> {
  const { refresh } = state ?? {};
  if (!state || !refresh || refresh.digest !== command.next || consentVoided(state)) {
    return accept([]);
  }
  return accept([
    commandEvent(command, 'authorization-refresh-undone', { request_id: command.requestId }),
  ]);
}

/**
 * The storefront withdraws a consent it gave in its space: every token it bought is revoked.
 * Withdrawing one already void changes nothing.
 */
export function decideRevokeConsent(
  command: Step & { readonly storefront: Pick<Storefront, 'clientId'> },
  state: AuthorizationRequestState | undefined,
): Decision<AuthorizationEvent, AuthorizationRefusal> {
  if (!mayGiveConsent(command.storefront.clientId)) return refuse('not_storefront');
  if (!state || !ownedBySpace(state, command.spaceId) || !state.consent) {
    return refuse('not_found');
  }
  if (consentVoided(state) || command.now >= consentEndsAt(state)) return accept([]);
  return accept([
    commandEvent(command, 'authorization-consent-revoked', { request_id: command.requestId }),
  ]);
}
