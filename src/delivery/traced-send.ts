import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { tracesOf, type LinkedSpans } from '#event-log/event-traces.js';
import type { SinkBatch, SinkTransport } from './transports.js';

/**
 * A sink's send with its events' traces: each batch goes out with the trace of every event's
 * request (a CloudEvent's `traceparent`, syslog's `trace_id`), read beside the log, whatever
 * this process's own tracing; with `spans` (tracing on) each delivery is also a span
 * (`sink.deliver`) linked to those requests. The traces are read first (a database error is
 * not the sink's): the answer is the send itself, to be run and judged as the sink's.
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
