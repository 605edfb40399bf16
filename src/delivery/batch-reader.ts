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
 * The sink's next events after `after`, in commit-safe log order (the projections' order, so per
 * space it is the log's order too), at most `limit`. An operator sink reads the whole log; a
 * space's sink reads a settled stretch of at most `scanLimit` events of the log and takes its
 * space's events from it, so its cursor passes other spaces' traffic instead of rescanning it.
 * Undefined when nothing settled after `after`.
 */
export async function nextBatch(
  db: Kysely<Database>,
  options: {
    readonly after: LogPosition;
    readonly spaceId: string | null;
    readonly limit: number;
    readonly scanLimit: number;
    /**
     * The end of a batch sent before and never acknowledged (a deliverer crash): that range again,
     * whole, so it goes under the same webhook-id (its events settled: the range holds the same).
     */
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
