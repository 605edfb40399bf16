import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { tracesOf, type LinkedSpans } from '#event-log/event-traces.js';
import type { SinkBatch, SinkTransport } from './transports.js';

/**
 * A sink's send carrying each event's request trace (and a `sink.deliver` span with `spans`). The
 * traces are read first, so a database error is not the sink's.
 */
export function tracedSend(
  db: Kysely<Database>,
  transport: SinkTransport,
  sink: () => { readonly sinkId: string; readonly target: { readonly kind: string } },
  spans?: LinkedSpans,
): (batch: Omit<SinkBatch, 'traces'>) => Promise<() => Promise<void>> {
  return async (batch) => {
    const traces = await tracesOf(
      db,
      batch.events.map((event) => event.globalPosition),
    );
    const send = () => transport.send({ ...batch, traces });
    if (!spans) return send;
    return () =>
      spans('sink.deliver', send, async () => ({
        attributes: {
          'sink.id': sink().sinkId,
          'sink.kind': sink().target.kind,
          'sink.event_count': batch.events.length,
        },
        links: [...traces.values()],
      }));
  };
}
