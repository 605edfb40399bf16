import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The database's purge functions (migrations 025, 045, 047, 050), the projector's only way to remove these rows. */
export type PurgeFunction =
  | 'purge_expired_revocations'
  | 'purge_expired_used_once_ids'
  | 'purge_expired_idempotent_responses'
  | 'purge_expired_stream_digests'
  | 'purge_expired_authorization_states'
  | 'purge_expired_status_list_entries';

/** Runs a database purge function: the database decides what goes; the caller holds no DELETE. */
export async function purgedBy(db: Kysely<Database>, purge: PurgeFunction): Promise<number> {
  // A name from the closed list above, never from input.
  const { rows } = await sql<{ removed: string }>`SELECT ${sql.raw(purge)}() AS removed`.execute(
    db,
  );
  return Number(rows[0]?.removed ?? 0);
}
