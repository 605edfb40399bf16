import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { appendToStream, type AppendInput, type AppendResult } from './append-to-stream.js';
import type { RecordedEvent } from './types.js';

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
 *
 * One batch in flight by default: measured (npm run bench), a single writer lets batches grow
 * while the previous commit flushes, which halved Postgres CPU per issuance against four writers
 * with no loss of throughput.
 */
export function createBatchedAppender(
  db: Kysely<Database>,
  options: { readonly maxBatch?: number; readonly maxInFlight?: number } = {},
): BatchedAppender {
  const maxBatch = options.maxBatch ?? 500;
  const maxInFlight = options.maxInFlight ?? 1;
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
    const rows = batch.flatMap(({ input }) =>
      input.events.map((event, index) => ({ input, event, position: index + 1 })),
    );
    try {
      // Eight array parameters whatever the batch size: one short statement to parse and plan,
      // and nothing to read back but what the database assigned.
      const { rows: written } = await sql<{
        event_id: string;
        global_position: number;
        transaction_id: string;
        recorded_at: Date;
      }>`
        INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type,
                            schema_version, data, metadata)
        SELECT * FROM unnest(
          ${rows.map((r) => r.input.spaceId)}::text[], ${rows.map((r) => r.input.streamId)}::text[],
          ${rows.map((r) => r.position)}::bigint[], ${rows.map((r) => r.event.eventId)}::uuid[],
          ${rows.map((r) => r.event.type)}::text[], ${rows.map((r) => r.event.schemaVersion ?? 1)}::int[],
          ${rows.map((r) => JSON.stringify(r.event.data))}::jsonb[],
          ${rows.map((r) => JSON.stringify(r.event.metadata))}::jsonb[])
        RETURNING event_id, global_position, transaction_id::text AS transaction_id, recorded_at`.execute(
        db,
      );
      const assigned = new Map(written.map((row) => [row.event_id, row]));
      for (const pending of batch) {
        const events: RecordedEvent[] = pending.input.events.map((event, index) => {
          const row = assigned.get(event.eventId)!;
          return {
            globalPosition: row.global_position,
            transactionId: row.transaction_id,
            spaceId: pending.input.spaceId,
            streamId: pending.input.streamId,
            streamPosition: index + 1,
            eventId: event.eventId,
            type: event.type,
            schemaVersion: event.schemaVersion ?? 1,
            data: event.data,
            metadata: event.metadata,
            recordedAt: row.recorded_at,
          };
        });
        pending.resolve({ ok: true, duplicate: false, events });
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
