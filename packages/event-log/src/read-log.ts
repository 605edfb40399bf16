import { sql } from 'kysely';
import { logTables, type EventLogTables, type LogDatabase } from './table.js';
import {
  LOG_START,
  EVENT_COLUMNS,
  toRecordedEvent,
  type EventRow,
  type LogPosition,
  type RecordedEvent,
} from './types.js';
import { walkLogOrder } from './log-order.js';

/** One page of the log. `last` is where the next read resumes (unchanged when empty). */
export interface LogPage {
  readonly events: readonly RecordedEvent[];
  readonly last: LogPosition;
}

/**
 * Reads committed events after `after`, in commit-safe order.
 *
 * global_position is taken at insert time, not at commit, so a transaction holding a low position
 * can commit after higher ones are visible; a cursor on position alone would skip it forever.
 * We only read transactions older than every transaction still running
 * (pg_snapshot_xmin), and order by (transaction_id, global_position), so once a reader passes a
 * point nothing can ever appear behind it.
 */
export async function readLog<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  options: {
    readonly after: LogPosition;
    readonly limit: number;
    readonly spaceId?: string;
    /** Only these spaces' events (one read for several followers). */
    readonly spaceIds?: readonly string[];
    /** No event past this one (a head read before: every event up to it has settled). */
    readonly through?: LogPosition;
  },
): Promise<LogPage> {
  // The resume key (transaction_id, global_position) is unique only by how the database assigns
  // it (the log is partitioned by time: no unique index can say it). A row slipped in with the
  // key of another would be skipped when it sits at a page boundary, so the page starts AT
  // `after` and a second row there is refused, as is one repeated inside the page (issue 50).
  const resumes = options.after.transactionId !== LOG_START.transactionId;
  const select = (db: LogDatabase<DB>) =>
    logTables(db)
      .selectFrom('events')
      .select(EVENT_COLUMNS)
      .where(sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`)
      .where(
        resumes
          ? sql<boolean>`(transaction_id, global_position) >= (${options.after.transactionId}::xid8, ${options.after.globalPosition}::bigint)`
          : sql<boolean>`(transaction_id, global_position) > (${options.after.transactionId}::xid8, ${options.after.globalPosition}::bigint)`,
      )
      .$if(options.spaceId !== undefined, (query) => query.where('space_id', '=', options.spaceId!))
      .$if(options.spaceIds !== undefined, (query) =>
        query.where('space_id', 'in', options.spaceIds!.length > 0 ? options.spaceIds! : ['']),
      )
      .$if(options.through !== undefined, (query) =>
        query.where(
          sql<boolean>`(transaction_id, global_position) <= (${options.through!.transactionId}::xid8, ${options.through!.globalPosition}::bigint)`,
        ),
      )
      .orderBy('transaction_id')
      .orderBy('global_position')
      .limit(options.limit + (resumes ? 2 : 0));
  // Filtered by space, a read may rather use the space's index; unfiltered, it walks the log.
  const rows = (
    options.spaceId === undefined && options.spaceIds === undefined
      ? await walkLogOrder(db, (trx) => select(trx).execute())
      : await select(db).execute()
  ) as EventRow[];
  const all = rows.map(toRecordedEvent);
  let at = 0;
  while (at < all.length && samePosition(all[at]!, options.after)) at += 1;
  if (at > 1) throw new LogKeyRepeatedError(options.after);
  for (let index = at + 1; index < all.length; index += 1) {
    if (samePosition(all[index]!, all[index - 1]!)) throw new LogKeyRepeatedError(all[index]!);
  }
  const events = all.slice(at, at + options.limit);
  const tail = events.at(-1);
  return {
    events,
    last: tail
      ? { transactionId: tail.transactionId, globalPosition: tail.globalPosition }
      : options.after,
  };
}

/**
 * Two events of the log hold one position (transaction, global position): a row written past
 * the database's own assignment (a superuser with the triggers off). Readers stop there rather
 * than skip or repeat one; the log-tree check reports it as an event added.
 */
export class LogKeyRepeatedError extends Error {
  readonly position: LogPosition;
  constructor(position: LogPosition) {
    super(
      `two events of the log hold position (${position.transactionId}, ${position.globalPosition}): one was not written by the service`,
    );
    this.name = 'LogKeyRepeatedError';
    this.position = {
      transactionId: position.transactionId,
      globalPosition: position.globalPosition,
    };
  }
}

/**
 * Where the log stands now for a reader in commit-safe order: the last event every running
 * transaction is past (the start of the log when there is none). Reading after it yields only
 * what commits from now on.
 */
export async function logHead<DB extends EventLogTables>(
  db: LogDatabase<DB>,
): Promise<LogPosition> {
  const row = await logTables(db)
    .selectFrom('events')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'global_position'])
    .where(sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`)
    .orderBy('transaction_id', 'desc')
    .orderBy('global_position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row
    ? { transactionId: row.transaction_id, globalPosition: Number(row.global_position) }
    : { transactionId: '0', globalPosition: 0 };
}

const samePosition = (a: LogPosition, b: LogPosition) =>
  a.globalPosition === b.globalPosition && a.transactionId === b.transactionId;

/** Whether `a` comes after `b` in commit-safe order. */
export function isAfter(a: LogPosition, b: LogPosition): boolean {
  const [ta, tb] = [BigInt(a.transactionId), BigInt(b.transactionId)];
  return ta === tb ? a.globalPosition > b.globalPosition : ta > tb;
}

/** The log position of the event at `globalPosition` in `spaceId`, if there is one. */
export async function positionOf<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  spaceId: string,
  globalPosition: number,
): Promise<LogPosition | undefined> {
  const row = await logTables(db)
    .selectFrom('events')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'global_position'])
    .where('global_position', '=', globalPosition)
    .where('space_id', '=', spaceId)
    .executeTakeFirst();
  return row
    ? { transactionId: row.transaction_id, globalPosition: Number(row.global_position) }
    : undefined;
}
