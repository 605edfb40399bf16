import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { purgedBy } from './purge.js';

/** An id presented once (a client assertion's or a DPoP proof's jti), and until when it counts. */
export interface UsedOnce {
  readonly spaceId: string;
  /** Who presented it: `client:<client id>` or `dpop:<key thumbprint>`. */
  readonly holder: string;
  readonly id: string;
  readonly expiresAt: Date;
}

/**
 * Records an id until its proof expires. False when it was already there: a replay, refused by
 * every API process alike (the primary key decides, not a process's memory).
 */
export async function rememberUsedOnce(db: Kysely<Database>, used: UsedOnce): Promise<boolean> {
  const result = await db
    .insertInto('used_once_ids')
    .values({
      space_id: used.spaceId,
      holder: used.holder,
      id_hash: createHash('sha256').update(used.id, 'utf8').digest('base64url'),
      expires_at: used.expiresAt,
    })
    .onConflict((oc) => oc.columns(['space_id', 'holder', 'id_hash']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/**
 * Drops ids whose proofs have expired (an expired proof is refused anyway), through the
 * database's own function (migration 025): the projector's role may not DELETE an unexpired id,
 * which would let its assertion or proof be replayed.
 */
export async function purgeExpiredUsedOnce(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_used_once_ids');
}
