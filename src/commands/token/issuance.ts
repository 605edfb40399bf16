import type { EventMetadata } from '../../domain/events.js';
import { InvalidRequestError, InvalidScopeError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';

/** When and under which ids a token is issued, chosen here so the decisions stay pure. */
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

/** The refusals every issuance answers alike; each flow names its own others' errors. */
type Shared = 'invalid_scope' | 'may_act_unknown';

/** The error a refused issuance is answered with. */
export function refusalError<Refusal extends string>(
  refused: { readonly refusal: Refusal; readonly detail?: string },
  errors: Readonly<Record<Exclude<Refusal, Shared>, () => Error>>,
): Error {
  const refusal: string = refused.refusal;
  if (refusal === 'invalid_scope') return new InvalidScopeError(refused.detail!);
  if (refusal === 'may_act_unknown') {
    const message = 'is not an active client of this space';
    return new InvalidRequestError(`may_act ${message}`, [{ field: 'may_act', message }]);
  }
  return errors[refusal as Exclude<Refusal, Shared>]();
}
