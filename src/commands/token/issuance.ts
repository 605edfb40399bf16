import type { EventMetadata } from '../../domain/events.js';
import type { CommandContext } from '../context.js';

/**
 * When and under which ids a token is issued, chosen here so the decisions stay pure: now, a
 * fresh jti, and the request's id as the event's (one request, one issuance).
 */
export function issuanceNow(
  ctx: CommandContext,
  metadata: EventMetadata,
  /** The DPoP key the token is bound to; none for a bearer token. */
  jkt: string | undefined,
) {
  return {
    metadata,
    now: ctx.clock.now(),
    eventId: metadata.request_id,
    jti: ctx.ids.tokenId(),
    jkt,
  };
}
