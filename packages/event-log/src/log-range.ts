import { sql, type RawBuilder } from 'kysely';
import type { EventLogTables, LogDatabase } from './table.js';
import type { LogPosition } from './types.js';
import { walkLogOrder } from './log-order.js';

/** A settled stretch of the log, (after, through] in commit-safe order, and how many events. */
export interface LogRange {
  readonly after: LogPosition;
  readonly through: LogPosition;
  readonly count: number;
  /** The lowest and highest global position of its events (see {@link inRange} for why). */
  readonly positions: PositionSpan;
}

/** The span of global positions a stretch of the log covers. */
export interface PositionSpan {
  readonly min: number;
  readonly max: number;
}

/**
 * The next up-to-`limit` committed events after `after`, as a range. Every transaction at or
 * below `through` has finished (it is below the snapshot's xmin), so the range can never gain an
 * event later: set-based projections can read it with {@link inRange} and be exact. Found by
 * walking the log-order index ({@link walkLogOrder}), reading about `limit` rows.
 */
export async function nextLogRange<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  after: LogPosition,
  limit: number,
): Promise<LogRange | undefined> {
  const { rows } = await walkLogOrder(db, (db) =>
    sql<{
      transaction_id: string;
      global_position: number;
      count: number;
      min_position: number;
      max_position: number;
    }>`
    SELECT transaction_id::text AS transaction_id, global_position, count(*) OVER ()::int AS count,
           min(global_position) OVER () AS min_position, max(global_position) OVER () AS max_position
    FROM (
      SELECT transaction_id, global_position FROM events
      WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        AND (transaction_id, global_position) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)
      ORDER BY transaction_id, global_position
      LIMIT ${limit}
    ) batch
    ORDER BY transaction_id DESC, global_position DESC
    LIMIT 1`.execute(db),
  );
  const last = rows[0];
  if (!last) return undefined;
  return {
    after,
    through: { transactionId: last.transaction_id, globalPosition: last.global_position },
    count: last.count,
    positions: { min: Number(last.min_position), max: Number(last.max_position) },
  };
}

/**
 * SQL condition: the row of `events` aliased `alias` lies in `range`.
 *
 * The planner estimates a row comparison from its leading column alone: a range of 1,000 events
 * inside a bulk transaction of 500,000 reads as a quarter of the log, and it scans every row
 * (issue 56). The span of positions, redundant for the result, is what it estimates well, so a
 * range that knows its span is always read by index.
 */
export function inRange(
  range: Pick<LogRange, 'after' | 'through'> & { readonly positions?: PositionSpan },
  alias = 'events',
): RawBuilder<boolean> {
  const tx = sql.ref(`${alias}.transaction_id`);
  const pos = sql.ref(`${alias}.global_position`);
  const span = range.positions
    ? sql`AND ${pos} BETWEEN ${range.positions.min}::bigint AND ${range.positions.max}::bigint`
    : sql``;
  return sql<boolean>`(${tx}, ${pos}) > (${range.after.transactionId}::xid8, ${range.after.globalPosition}::bigint)
    AND (${tx}, ${pos}) <= (${range.through.transactionId}::xid8, ${range.through.globalPosition}::bigint)
    ${span}`;
}
