import { sql } from 'kysely';
import type { EventLogTables, LogDatabase } from './table.js';

/**
 * Runs `read`, a read of the log in commit-safe order under a LIMIT, as a walk of the log-order
 * index that stops at the limit. Past a position inside the newest transaction the planner
 * estimates one row, and would rather sort every settled event after it: the rest of a bulk
 * transaction, read again for every batch, so a follower's catch-up cost the square of its
 * backlog. Sorting is off for `read` alone (in PostgreSQL 18 a plan with a disabled node loses to
 * any plan without one), in the caller's transaction or in one of its own.
 */
export async function walkLogOrder<DB extends EventLogTables, T>(
  db: LogDatabase<DB>,
  read: (db: LogDatabase<DB>) => Promise<T>,
): Promise<T> {
  if (!db.isTransaction) {
    // Its own transaction: the setting ends with it, nothing to restore.
    return db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('enable_sort', 'off', true)`.execute(trx);
      return read(trx);
    });
  }
  const { rows } = await sql<{ was: string }>`
    SELECT current_setting('enable_sort') AS was, set_config('enable_sort', 'off', true)`.execute(
    db,
  );
  const result = await read(db);
  // On failure the transaction is aborted, and the setting with it.
  await sql`SELECT set_config('enable_sort', ${rows[0]!.was}, true)`.execute(db);
  return result;
}
