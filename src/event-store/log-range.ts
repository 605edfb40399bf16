import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { LogPosition } from './types.js';

/** A settled stretch of the log, (after, through] in commit-safe order, and how many events. */
export interface LogRange {
  readonly after: LogPosition;
  readonly through: LogPosition;
  readonly count: number;
}

/**
 * The next up-to-`limit` committed events after `after`, as a range. Every transaction at or
 * below `through` has finished (it is below the snapshot's xmin), so the range can never gain an
 * event later: set-based projections can read it with {@link inRange} and be exact.
 */
export async function nextLogRange(
  db: Kysely<Database>,
  after: LogPosition,
  limit: number,
): Promise<LogRange | undefined> {
  const { rows } = await sql<{ transaction_id: string; global_position: number; count: number }>`
    SELECT transaction_id::text AS transaction_id, global_position, count(*) OVER ()::int AS count
    FROM (
      SELECT transaction_id, global_position FROM events
      WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        AND (transaction_id, global_position) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)
      ORDER BY transaction_id, global_position
      LIMIT ${limit}
    ) batch
    ORDER BY transaction_id DESC, global_position DESC
    LIMIT 1`.execute(db);
  const last = rows[0];
  if (!last) return undefined;
  return {
    after,
    through: { transactionId: last.transaction_id, globalPosition: last.global_position },
    count: last.count,
  };
}

/** SQL condition: the row of `events` aliased `alias` lies in `range`. */
export function inRange(
  range: Pick<LogRange, 'after' | 'through'>,
  alias = 'events',
): RawBuilder<boolean> {
  const tx = sql.ref(`${alias}.transaction_id`);
  const pos = sql.ref(`${alias}.global_position`);
  return sql<boolean>`(${tx}, ${pos}) > (${range.after.transactionId}::xid8, ${range.after.globalPosition}::bigint)
    AND (${tx}, ${pos}) <= (${range.through.transactionId}::xid8, ${range.through.globalPosition}::bigint)`;
}
