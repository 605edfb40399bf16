import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { nextLogRange } from '#event-log/log-range.js';
import { readLog } from '#event-log/read-log.js';
import type { LogPosition, RecordedEvent } from '#event-log/types.js';

/** The most events of a range held for a re-send (the largest SINK_BATCH_SIZE). */
const MAX_HELD_RANGE = 5000;

/** The next batch of a sink: its events, and where its cursor goes once they are delivered. */
export interface NextBatch {
  readonly events: readonly RecordedEvent[];
  readonly through: LogPosition;
  /** The read reached the log's settled end: more will come only as others append. */
  readonly atEnd: boolean;
}

/**
 * The sink's next events after `after` in commit-safe order, at most `limit`. A space's sink reads
 * at most `scanLimit` settled log events, so its cursor passes other spaces' traffic.
 */
export async function nextBatch(
  db: Kysely<Database>,
  options: {
    readonly after: LogPosition;
    readonly spaceId: string | null;
    readonly limit: number;
    readonly scanLimit: number;
    /** An unacknowledged batch's end (a crash): that range again, whole, under the same webhook-id. */
    readonly pending?: LogPosition;
  },
): Promise<NextBatch | undefined> {
  const { after, spaceId, limit, pending } = options;
  if (pending) {
    // At most the batch size it was read with, unless SINK_BATCH_SIZE shrank since.
    const page = await readLog(db, {
      after,
      through: pending,
      limit: Math.max(limit, MAX_HELD_RANGE),
      ...(spaceId === null ? {} : { spaceId }),
    });
    return { events: page.events, through: pending, atEnd: false };
  }
  if (spaceId === null) {
    const page = await readLog(db, { after, limit });
    return page.events.length === 0
      ? undefined
      : { events: page.events, through: page.last, atEnd: page.events.length < limit };
  }
  const range = await nextLogRange(db, after, options.scanLimit);
  if (!range) return undefined;
  const page = await readLog(db, { after, through: range.through, spaceId, limit });
  const full = page.events.length === limit;
  return {
    events: page.events,
    through: full ? page.last : range.through,
    atEnd: !full && range.count < options.scanLimit,
  };
}
