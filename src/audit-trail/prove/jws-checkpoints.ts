import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The JWS checkpoints over the retired hash chains (audit_checkpoints, written until issue 45):
 * no longer made, kept for exports of format 1, which carry them, and served read only by GET
 * /v1/audit/checkpoints. The signed tree heads (tree-head-signing.ts) took their place.
 */

/** What a JWS checkpoint signed; see src/audit-trail/audit-key.ts. */
export interface CheckpointStatement {
  readonly space_id: string;
  readonly checkpoint_number: number;
  readonly sequence: number;
  readonly head_hash: string;
  readonly previous_checkpoint: string | null;
  readonly created_at: string;
}

/** The hash a checkpoint's successor names as `previous_checkpoint`. */
export function checkpointDigest(jws: string): string {
  return createHash('sha256').update(jws).digest('hex');
}

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
