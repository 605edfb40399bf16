import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The retired hash chains' JWS checkpoints: kept for format-1 exports and the API. */

/** A space's JWS checkpoints (before the Merkle trees), in the order they were made. */
export async function listCheckpoints(db: Kysely<Database>, spaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_checkpoints')
    .select('jws')
    .where('space_id', '=', spaceId)
    .orderBy('checkpoint_number')
    .execute();
  return rows.map((row) => row.jws);
}
