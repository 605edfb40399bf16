import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { honouredInSwitchOver, type IssuedTokenClaims } from '../../domain/policy.js';
import { tokenStreamId } from '../../domain/streams.js';

/**
 * Whether a shared-ring token of a space with its own ring is honoured ({@link
 * honouredInSwitchOver}): what its issuance kept beside the log, and whether the switch-over was
 * ended, in one read, asked at each use (so an end reaches every replica at once).
 */
export async function isRecordedIssuance(
  db: Kysely<Database>,
  claims: IssuedTokenClaims,
  digest: Buffer,
): Promise<boolean> {
  const { rows } = await sql<{ digest: Buffer; ended: boolean }>`
    SELECT digest, EXISTS (SELECT 1 FROM ended_switch_overs e WHERE e.space_id = d.space_id) AS ended
    FROM stream_digests d
    WHERE space_id = ${claims.space_id} AND stream_id = ${tokenStreamId(claims.jti)}`.execute(db);
  return honouredInSwitchOver(rows[0], digest);
}
