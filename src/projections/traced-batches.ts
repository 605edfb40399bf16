import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { tracesInRange, type LinkedSpans } from '#event-log/event-traces.js';
import type { LogRange } from '#event-log/log-range.js';
import { projectNextBatchTogether } from './batches.js';
import type { Projection } from './projection.js';

/** The next batch as a `projector.batch` span linked to its requests' traces when `spans` is given. */
export function tracedBatches(options: {
  readonly db: Kysely<Database>;
  readonly projections: readonly Projection[];
  readonly spans?: LinkedSpans;
}): (size: number) => Promise<number> {
  const { db, projections, spans } = options;
  if (!spans) return (size) => projectNextBatchTogether(db, projections, size);
  return (size) => {
    let range: LogRange | undefined;
    return spans(
      'projector.batch',
      () => projectNextBatchTogether(db, projections, size, (projected) => (range = projected)),
      async (count) => {
        if (!range) return undefined;
        const traces = await tracesInRange(db, range);
        return {
          attributes: {
            'projector.event_count': count,
            'projector.projections': projections.length,
          },
          links: [...traces.values()],
        };
      },
    );
  };
}
