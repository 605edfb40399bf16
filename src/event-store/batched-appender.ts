import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { appendToStream, type AppendInput, type AppendResult } from './append-to-stream.js';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow } from './types.js';

/** Appends new single-event streams, many per round trip. */
export interface BatchedAppender {
  /** Same contract as appendToStream for `expectedVersion: 'no_stream'`. */
  append(input: AppendInput): Promise<AppendResult>;
}

interface Pending {
  readonly input: AppendInput;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the hot path. Every issued token is a new stream, so concurrent appends never
 * conflict; instead of one INSERT and one WAL flush each, appends that arrive while earlier ones
 * are being written go out together as one multi-row INSERT (one statement, so all or nothing,
 * and one flush). No timer: a lone request is written at once; batches form only under load.
 * Each caller still resolves only after its own row committed. If a batch fails, its appends are
 * retried one by one so each gets its own answer.
 */
export function createBatchedAppender(
  db: Kysely<Database>,
  options: { readonly maxBatch?: number; readonly maxInFlight?: number } = {},
): BatchedAppender {
  const maxBatch = options.maxBatch ?? 500;
  const maxInFlight = options.maxInFlight ?? 4;
  const queue: Pending[] = [];
  let inFlight = 0;

  const flush = () => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight += 1;
      void write(batch).finally(() => {
        inFlight -= 1;
        flush();
      });
    }
  };

  async function write(batch: Pending[]): Promise<void> {
    try {
      const rows = (await db
        .insertInto('events')
        .values(
          batch.flatMap(({ input }) =>
            input.events.map((event, index) => ({
              space_id: input.spaceId,
              stream_id: input.streamId,
              stream_position: index + 1,
              event_id: event.eventId,
              event_type: event.type,
              schema_version: event.schemaVersion ?? 1,
              data: JSON.stringify(event.data),
              metadata: JSON.stringify(event.metadata),
            })),
          ),
        )
        .returning(EVENT_COLUMNS)
        .execute()) as EventRow[];
      const byStream = new Map<string, EventRow[]>();
      for (const row of rows) {
        const key = `${row.space_id}\u0000${row.stream_id}`;
        byStream.set(key, [...(byStream.get(key) ?? []), row]);
      }
      for (const pending of batch) {
        const own = byStream.get(`${pending.input.spaceId}\u0000${pending.input.streamId}`) ?? [];
        pending.resolve({ ok: true, duplicate: false, events: own.map(toRecordedEvent) });
      }
    } catch {
      // One bad append (a duplicate id, say) fails the whole statement: answer each on its own.
      await Promise.all(
        batch.map(({ input, resolve, reject }) => appendToStream(db, input).then(resolve, reject)),
      );
    }
  }

  return {
    append(input) {
      if (input.expectedVersion !== 'no_stream') return appendToStream(db, input);
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push({ input, resolve, reject });
        flush();
      });
    },
  };
}
