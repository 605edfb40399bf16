import { encodeStatusList, STATUS_INVALID } from '#verifier/status-list-codec.js';
import { parseEventData } from '../../domain/events.js';
import { fullForm } from '../../domain/stored-form.js';
import { statusListUri, tokenClaims } from '../../domain/token/claims.js';
import { isIssuance } from '../../domain/token/issuances.js';
import { secondsOf } from '../../domain/times.js';
import { signJwtOffThread } from '../../crypto/access-tokens.js';
import { STATUS_LIST_SIZE } from '../../crypto/status-slots.js';
import type { StatusListEntry } from '../../projections/status-list-entries.js';
import type { CommandContext } from '../context.js';
import { ownSigning, type SigningPorts } from './issuance.js';
import { tokenStands, type TokenStandingPorts } from './introspect.js';

/** How long a verifier may keep a list before fetching it again (draft §5.1 `ttl`), seconds. */
export const STATUS_LIST_TTL_SECONDS = 30;
/** A list token's lifetime: a verifier that could not fetch a newer one stops trusting it then. */
const STATUS_LIST_LIFETIME_SECONDS = 120;

/** What building a list reads: each token's standing, the clock, and what signs for the space. */
export type StatusListPorts = TokenStandingPorts & SigningPorts & Pick<CommandContext, 'clock'>;

/**
 * A space's status list as a signed `statuslist+jwt` (draft-ietf-oauth-status-list §5.1): every
 * entry judged now by the rule introspection answers by ({@link tokenStands}), an expired token's
 * INVALID as introspection says. A list with no entry yet (within the projector's lag) or any
 * more (a day after its tokens expired) is all VALID.
 */
export async function statusListToken(
  ctx: StatusListPorts,
  spaceId: string,
  listId: string,
  entries: readonly StatusListEntry[],
): Promise<string> {
  const iat = secondsOf(ctx.clock.now());
  const invalid: Array<readonly [number, number]> = [];
  for (const entry of entries) {
    if (!isIssuance(entry.type)) continue;
    const { data } = fullForm({
      eventId: '',
      type: entry.type,
      data: entry.data,
      metadata: {},
      streamId: entry.streamId,
    });
    const claims = tokenClaims(
      { type: entry.type, data: parseEventData(entry.type, data) },
      ctx.issuer,
      spaceId,
    );
    if (claims.exp <= iat || !(await tokenStands(ctx, claims))) {
      invalid.push([entry.idx, STATUS_INVALID]);
    }
  }
  const own = await ownSigning(ctx, spaceId);
  const claims = {
    iss: own?.issuer ?? ctx.issuer,
    sub: statusListUri(ctx.issuer, spaceId, listId),
    iat,
    exp: iat + STATUS_LIST_LIFETIME_SECONDS,
    ttl: STATUS_LIST_TTL_SECONDS,
    status_list: { bits: 1, lst: encodeStatusList(STATUS_LIST_SIZE, 1, invalid) },
  };
  return signJwtOffThread(own?.key ?? ctx.keys.current(), claims, 'statuslist+jwt', spaceId);
}
