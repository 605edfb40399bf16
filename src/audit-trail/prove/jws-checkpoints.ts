import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The JWS checkpoints over the retired hash chains (audit_checkpoints, written until issue 45):
 * no longer made, kept for exports of format 1, which carry them, and served read only by GET
 * /v1/audit/checkpoints. The signed tree heads (seal/tree-head-signing.ts) took their place; check/jws-checkpoint.ts
 * reads and verifies them.
 */

/** A space's JWS checkpoints made before issue 45, in the order they were made. */
export async function listCheckpoints(db: Kysely<Database>, spaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_checkpoints')
    .select('jws')
    .where('space_id', '=', spaceId)
    .orderBy('checkpoint_number')
    .execute();
  return rows.map((row) => row.jws);
}
