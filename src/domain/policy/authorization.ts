import { delegatedDetails } from './delegation.js';

/** How long a customer has to sign in and decide, from the request to the browser's return. */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 600;

/** An authorization code's life: it is redeemed at once (OAuth 2.1 §4.1.2 advises 10 minutes at most). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/**
 * Only a storefront's own client gives consent for its customers: never an agent known by a
 * metadata document (a URL), whose private token buys no customer's token either (/v1/issue).
 */
export function mayGiveConsent(clientId: string): boolean {
  return !isMetadataClientId(clientId);
}

/**
 * A consent's receipts (its acceptance, its withdrawal) go to the storefront client that accepted
 * it: they show that request's metadata, which no other client of the space sent.
 */
export function consentReceiptReadable(
  consent: { readonly accepted_by: string } | undefined,
  clientId: string,
): boolean {
  return consent?.accepted_by === clientId;
}

/** No client consents to its own request: the storefront is another party than the agent. */
export function mayConsentTo(storefront: string, agent: string): boolean {
  return mayGiveConsent(storefront) && storefront !== agent;
}

/**
 * A registered credential is a confidential client: it authenticates at the token endpoint (its
 * secret or keys) for its code and refresh tokens. A metadata document's public client cannot.
 */
export function mustAuthenticateForGrant(clientId: string): boolean {
  return !isMetadataClientId(clientId);
}

/** Whether a client id is a URL (a client ID metadata document's), not one of our `ci_` ids. */
export const isMetadataClientId = (clientId: string) => /^[a-z][a-z0-9+.-]*:/i.test(clientId);

/** What the storefront grants is never wider than what the client asked: some scopes, some objects. */
export function grantedWithinAsked<Detail>(
  asked: { readonly scopes: readonly string[]; readonly details?: readonly Detail[] | undefined },
  granted: { readonly scopes: readonly string[]; readonly details?: readonly Detail[] | undefined },
): boolean {
  if (!granted.scopes.every((scope) => asked.scopes.includes(scope))) return false;
  if (granted.details === undefined) return true;
  return asked.details !== undefined && delegatedDetails(asked.details, granted.details).ok;
}

/** Whether a consent's tokens are void: a code or refresh token reused, or the consent withdrawn. */
export const consentVoided = (state: { readonly status: string }) =>
  state.status === 'replayed' || state.status === 'revoked';

/** A consent's life when the storefront names none: its refresh tokens end with it. */
export const CONSENT_TTL_SECONDS = 30 * 24 * 3600;

/** The longest consent a storefront may give: a year, then the customer is asked again. */
export const CONSENT_MAX_TTL_SECONDS = 365 * 24 * 3600;

/**
 * How many retired refresh tokens a consent remembers: one of them presented again is a reuse
 * that revokes the consent; older ones are only refused. Bounded, so a consent's row does not grow
 * with every refresh.
 */
export const RETIRED_REFRESH_KEPT = 16;
