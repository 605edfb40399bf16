import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { signatureDigest } from '../../crypto/access-tokens.js';
import { honouredInSwitchOver, type IssuedTokenClaims } from '../../domain/policy.js';
import { streams } from '../../domain/streams.js';

/**
 * Whether a shared-ring token of a space with its own ring is honoured ({@link
 * honouredInSwitchOver}): what its issuance kept beside the log, and whether the switch-over was
 * ended, in one read, asked at each use (so an end reaches every replica at once).
 */
export async function isRecordedIssuance(
  db: Kysely<Database>,
  claims: IssuedTokenClaims,
  signature: string,
): Promise<boolean> {
  const kept = await db
    .selectFrom('stream_digests')
    .select('digest')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('ended_switch_overs')
            .select('space_id')
            .where('space_id', '=', claims.space_id),
        )
        .as('ended'),
    )
    .where('space_id', '=', claims.space_id)
    .where('stream_id', '=', streams.token(claims.jti))
    .executeTakeFirst();
  const recorded = kept && { digest: kept.digest, ended: Boolean(kept.ended) };
  return honouredInSwitchOver(recorded, signatureDigest(`.${signature}`));
}
