import { consentEndsAt, decideRevokeConsent } from '../../domain/authorization/consent.js';
import type { Storefront } from '../../domain/authorization/decide.js';
import { consentVoided, mayGiveConsent } from '../../domain/policy.js';
import { secondsOf } from '../../domain/times.js';
import { onRequest, readConsents, type AuthorizationPorts } from './requests.js';
import { REFUSED, stepOf } from './steps.js';

/** A consent as the storefront lists it: the agent, what it may do, until when. */
export interface ConsentView {
  readonly consentId: string;
  readonly clientId: string;
  readonly customerId: string;
  readonly segmentId: string;
  readonly resource: string | undefined;
  readonly scopes: readonly string[];
  readonly authorizationDetails: unknown;
  readonly expiresAt: number;
}

/** A customer's consents in the space that stand now (redeemed, neither void nor ended). */
export async function listConsents(
  ctx: AuthorizationPorts,
  spaceId: string,
  customerId: string,
  storefront: Pick<Storefront, 'clientId'>,
): Promise<readonly ConsentView[]> {
  if (!mayGiveConsent(storefront.clientId)) throw REFUSED.not_storefront({});
  const now = secondsOf(ctx.clock.now());
  const consents = await readConsents(ctx, spaceId, customerId);
  return consents.flatMap(({ requestId, state: request }) => {
    const standing = request.consent && request.status === 'redeemed' && !consentVoided(request);
    if (!standing || now >= consentEndsAt(request)) return [];
    return [
      {
        consentId: requestId,
        clientId: request.asked.client_id,
        customerId: request.consent!.customer_id,
        segmentId: request.consent!.segment_id,
        resource: request.asked.resource,
        scopes: request.consent!.scopes,
        authorizationDetails: request.consent!.authorization_details,
        expiresAt: consentEndsAt(request),
      },
    ];
  });
}

/** The storefront withdraws a consent (`authorization-consent-revoked`): its tokens are revoked. */
export function revokeConsent(
  ctx: AuthorizationPorts,
  ask: Parameters<typeof stepOf>[1] & { readonly storefront: Pick<Storefront, 'clientId'> },
) {
  return onRequest(ctx, { ...ask, ...stepOf(ctx, ask) }, decideRevokeConsent, REFUSED);
}
