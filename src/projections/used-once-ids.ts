import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
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

/** Records an id until its proof expires; false on a replay (the primary key decides). */
export async function rememberUsedOnce(db: Kysely<Database>, used: UsedOnce): Promise<boolean> {
  const result = await db
    .insertInto('used_once_ids')
    .values({
      space_id: used.spaceId,
      holder: used.holder,
      id_hash: idHash(used.id),
      expires_at: used.expiresAt,
    })
    .onConflict((oc) => oc.columns(['space_id', 'holder', 'id_hash']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

const idHash = (id: string) => createHash('sha256').update(id, 'utf8').digest('base64url');

/**
 * Records the first unused of `ids` in one statement, returning its index (undefined: all used).
 * A lost race looks again; each loss is another's success, so at most `ids.length` tries.
 */
export async function rememberFirstUnused(
  db: Kysely<Database>,
  used: Omit<UsedOnce, 'id'> & { readonly ids: readonly string[] },
): Promise<number | undefined> {
  const hashes = used.ids.map(idHash);
  for (let attempt = 0; attempt <= hashes.length; attempt++) {
    const { rows } = await sql<{ free: number; taken: number | null }>`
      WITH free AS (
        SELECT h.id_hash, h.n FROM unnest(${hashes}::text[]) WITH ORDINALITY AS h(id_hash, n)
        WHERE NOT EXISTS (SELECT 1 FROM used_once_ids u WHERE u.space_id = ${used.spaceId}
          AND u.holder = ${used.holder} AND u.id_hash = h.id_hash)
        ORDER BY h.n LIMIT 1),
      taken AS (
        INSERT INTO used_once_ids (space_id, holder, id_hash, expires_at)
        SELECT ${used.spaceId}, ${used.holder}, id_hash, ${used.expiresAt} FROM free
        ON CONFLICT DO NOTHING RETURNING id_hash)
      SELECT (SELECT count(*) FROM free)::int AS free,
        (SELECT f.n FROM free f JOIN taken t USING (id_hash))::int AS taken`.execute(db);
    const [row] = rows;
    if (row?.taken != null) return row.taken - 1;
    if (!row || row.free === 0) return undefined;
  }
  return undefined;
}

/** Drops expired ids via the owner's function: the projector may not DELETE a live one. */
export async function purgeExpiredUsedOnce(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_used_once_ids');
}
