import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { LOG_START, type LogPosition, type RecordedEvent } from '#event-log/types.js';

/** Where a sink's delivery stands: delivered through `position`; failed attempts since. */
export interface SinkCursor {
  readonly position: LogPosition;
  readonly attempts: number;
  /** The end of the batch in flight, sent before and not yet acknowledged (a crash between). */
  readonly pending?: LogPosition;
  /** A polled stream's SETs acknowledged past `position` (signal-poll.ts). */
  readonly ackedAhead?: readonly string[];
}

/** A sink's cursor (the start of the log for a sink never delivered to). */
export async function readCursor(db: Kysely<Database>, sinkId: string): Promise<SinkCursor> {
  const row = await db
    .selectFrom('audit_sink_cursors')
    .select([
      sql<string>`transaction_id::text`.as('transaction_id'),
      'global_position',
      'attempts',
      sql<string | null>`pending_transaction_id::text`.as('pending_transaction_id'),
      'pending_global_position',
      'acked_ahead',
    ])
    .where('sink_id', '=', sinkId)
    .executeTakeFirst();
  if (!row) return { position: LOG_START, attempts: 0, ackedAhead: [] };
  const pending =
    row.pending_transaction_id === null || row.pending_global_position === null
      ? undefined
      : {
          transactionId: row.pending_transaction_id,
          globalPosition: Number(row.pending_global_position),
        };
  return {
    position: { transactionId: row.transaction_id, globalPosition: Number(row.global_position) },
    attempts: Number(row.attempts),
    ackedAhead: row.acked_ahead,
    ...(pending ? { pending } : {}),
  };
}

/**
 * The log's last settled event in commit-safe order: where a new signal stream's cursor starts.
 * Settled: an event of a transaction still running sorts after it, and is delivered.
 */
export const LOG_TIP = sql`SELECT transaction_id, global_position FROM events
  WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id DESC, global_position DESC LIMIT 1`;

/** Records the batch's end before its first send, so a crash resends it under the same id. */
export async function holdRange(
  db: Kysely<Database>,
  sinkId: string,
  from: LogPosition,
  through: LogPosition,
): Promise<void> {
  await db
    .updateTable('audit_sink_cursors')
    .set({
      pending_transaction_id: sql<string>`${through.transactionId}::xid8`,
      pending_global_position: through.globalPosition,
    })
    .where('sink_id', '=', sinkId)
    .where(
      sql<boolean>`(transaction_id, global_position) = (${from.transactionId}::xid8, ${from.globalPosition}::bigint)`,
    )
    .execute();
}

/**
 * Moves the cursor past an acknowledged batch (or an idle stretch), compare-and-set from where it
 * began so a deposed deliverer never moves it back or skips; false when it was elsewhere.
 */
export async function advanceCursor(
  db: Kysely<Database>,
  sinkId: string,
  from: LogPosition,
  through: LogPosition,
  batch: readonly RecordedEvent[],
  options: { readonly caughtUp?: boolean } = {},
): Promise<boolean> {
  const last = batch.at(-1);
  const result = await db
    .updateTable('audit_sink_cursors')
    .set({
      transaction_id: sql<string>`${through.transactionId}::xid8`,
      global_position: through.globalPosition,
      pending_transaction_id: null,
      pending_global_position: null,
      ...(last
        ? {
            delivered: sql<number>`delivered + ${batch.length}`,
            delivered_recorded_at: last.recordedAt,
            delivered_at: sql<Date>`now()`,
            attempts: 0,
          }
        : {}),
      // At the log's settled end nothing waits: the lag is known without counting.
      ...(options.caughtUp === true
        ? { lag_events: 0, lag_oldest_at: null, lag_counted_at: sql<Date>`now()` }
        : {}),
    })
    .where('sink_id', '=', sinkId)
    .where(
      sql<boolean>`(transaction_id, global_position) = (${from.transactionId}::xid8, ${from.globalPosition}::bigint)`,
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records a failed attempt: counted, its error kept (bounded), attempts since success returned. */
export async function recordFailure(
  db: Kysely<Database>,
  sinkId: string,
  error: string,
): Promise<number> {
  const row = await db
    .updateTable('audit_sink_cursors')
    .set({
      failures: sql<number>`failures + 1`,
      attempts: sql<number>`attempts + 1`,
      last_error: error.slice(0, 500),
      last_error_at: sql<Date>`now()`,
    })
    .where('sink_id', '=', sinkId)
    .returning('attempts')
    .executeTakeFirst();
  return Number(row?.attempts ?? 0);
}

/** Lag is counted up to this many events of the log: past it, "at least" is what one needs. */
export const LAG_COUNT_LIMIT = 100_000;

/** Counts a sink's lag (bounded to {@link LAG_COUNT_LIMIT}) onto its cursor row, read by statuses. */
export async function recordLag(
  db: Kysely<Database>,
  sinkId: string,
  spaceId: string | null,
  position: LogPosition,
): Promise<void> {
  await sql`
    UPDATE audit_sink_cursors SET lag_events = behind.events, lag_oldest_at = behind.oldest,
           lag_counted_at = now()
    FROM (
      SELECT count(*) FILTER (WHERE ${spaceId}::text IS NULL OR next.space_id = ${spaceId})::int
               AS events,
             min(next.recorded_at) FILTER (WHERE ${spaceId}::text IS NULL OR next.space_id = ${spaceId})
               AS oldest
      FROM (SELECT e.space_id, e.recorded_at FROM events e
             WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
               AND (e.transaction_id, e.global_position)
                   > (${position.transactionId}::xid8, ${position.globalPosition}::bigint)
             ORDER BY e.transaction_id, e.global_position
             LIMIT ${LAG_COUNT_LIMIT}) next
    ) behind
    WHERE sink_id = ${sinkId}
      AND (transaction_id, global_position)
          = (${position.transactionId}::xid8, ${position.globalPosition}::bigint)`.execute(db);
}

/** A cursor's failed attempts since its last success and its last failure (a pause names them). */
export const cursorOf = (db: Kysely<Database>, sinkId: string) =>
  db
    .selectFrom('audit_sink_cursors')
    .select(['attempts', 'last_error'])
    .where('sink_id', '=', sinkId)
    .executeTakeFirst();
