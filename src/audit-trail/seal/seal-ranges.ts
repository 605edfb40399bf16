import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inRange, type LogRange } from '#event-log/log-range.js';
import {
  EVENT_COLUMNS,
  LOG_START,
  toRecordedEvent,
  type EventRow,
  type LogPosition,
  type RecordedEvent,
} from '#event-log/types.js';

/** Where a seal's range ends: its last event. */
export function sealEnd(seal: {
  readonly last_transaction_id: string;
  readonly last_position: number;
}): LogPosition {
  return { transactionId: String(seal.last_transaction_id), globalPosition: seal.last_position };
}

/** The log stretch seal `sealNumber` covers; undefined when there is no such seal. */
export async function sealRange(
  db: Kysely<Database>,
  sealNumber: number,
): Promise<(Pick<LogRange, 'after' | 'through'> & { readonly eventCount: number }) | undefined> {
  const rows = await db
    .selectFrom('log_seals')
    .select(['seal_number', 'event_count', 'last_transaction_id', 'last_position'])
    .where('seal_number', 'in', [sealNumber - 1, sealNumber])
    .execute();
  const seal = rows.find((row) => row.seal_number === sealNumber);
  if (!seal) return undefined;
  const previous = rows.find((row) => row.seal_number === sealNumber - 1);
  return {
    after: previous ? sealEnd(previous) : LOG_START,
    through: sealEnd(seal),
    eventCount: seal.event_count,
  };
}

/** The number of the seal whose range holds `position`: the first to end at or after it. */
export async function sealHolding(
  db: Kysely<Database>,
  position: LogPosition,
): Promise<number | undefined> {
  const { rows } = await sql<{ seal_number: number }>`
    SELECT seal_number FROM log_seals
    WHERE (last_transaction_id, last_position) >= (${position.transactionId}::xid8, ${position.globalPosition})
    ORDER BY last_transaction_id, last_position LIMIT 1`.execute(db);
  return rows[0] === undefined ? undefined : Number(rows[0].seal_number);
}

/** A range's events in commit-safe order; with `space`, through the primary key between the bounds. */
export async function eventsInRange(
  db: Kysely<Database>,
  range: Pick<LogRange, 'after' | 'through'>,
  space?: { readonly spaceId: string; readonly minPosition: number; readonly maxPosition: number },
  /** Only these of them: skip `offset`, take `limit` (a tile of a space tree). */
  window?: { readonly offset: number; readonly limit: number },
): Promise<RecordedEvent[]> {
  const rows = (await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .where(inRange(range))
    .$if(space !== undefined, (query) =>
      query
        .where('space_id', '=', space!.spaceId)
        .where('global_position', '>=', space!.minPosition)
        .where('global_position', '<=', space!.maxPosition),
    )
    .orderBy('transaction_id')
    .orderBy('global_position')
    .$if(window !== undefined, (query) => query.offset(window!.offset).limit(window!.limit))
    .execute()) as EventRow[];
  return rows.map(toRecordedEvent);
}
