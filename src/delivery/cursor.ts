import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { LOG_START, type LogPosition, type RecordedEvent } from '../event-store/types.js';

/** Where a sink's delivery stands: delivered through `position`; failed attempts since. */
export interface SinkCursor {
  readonly position: LogPosition;
  readonly attempts: number;
}

/** A sink's cursor (the start of the log for a sink never delivered to). */
export async function readCursor(db: Kysely<Database>, sinkId: string): Promise<SinkCursor> {
  const row = await db
    .selectFrom('audit_sink_cursors')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'global_position', 'attempts'])
    .where('sink_id', '=', sinkId)
    .executeTakeFirst();
  if (!row) return { position: LOG_START, attempts: 0 };
  return {
    position: { transactionId: row.transaction_id, globalPosition: Number(row.global_position) },
    attempts: Number(row.attempts),
  };
}

/**
 * Moves the cursor to `through` past a batch the sink acknowledged (or past a stretch of the log
 * holding none of the sink's space's events: an idle space's cursor keeps up with the log, so its
 * next read does not scan what it already passed): compare-and-set from where the batch
 * began, so a deliverer that lost its lock to another can never move it back or skip. False when
 * the cursor was not where this deliverer thought (it then reads it again).
 */
export async function advanceCursor(
  db: Kysely<Database>,
  sinkId: string,
  from: LogPosition,
  through: LogPosition,
  batch: readonly RecordedEvent[],
): Promise<boolean> {
  const last = batch.at(-1);
  const result = await db
    .updateTable('audit_sink_cursors')
    .set({
      transaction_id: sql<string>`${through.transactionId}::xid8`,
      global_position: through.globalPosition,
      ...(last
        ? {
            delivered: sql<number>`delivered + ${batch.length}`,
            delivered_recorded_at: last.recordedAt,
            delivered_at: sql<Date>`now()`,
            attempts: 0,
          }
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
