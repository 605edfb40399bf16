import { sql } from 'kysely';
import type { EventLogTables, LogDatabase } from './table.js';
import { inRange, type LogRange } from './log-range.js';

/**
 * The sampled trace of the request that appended an event (W3C trace context ids, lower-case
 * hex), kept beside the log in `event_traces` (migration 042), never in the event: its leaf does
 * not cover it, so whether a request was traced or sampled never changes the evidence.
 */
export interface EventTrace {
  /** 32 hex digits. */
  readonly traceId: string;
  /** 16 hex digits: the span the event was appended in. */
  readonly spanId: string;
}

/** The trace the append runs in, if any (the store asks it at each append's call). */
export type TraceOf = () => EventTrace | undefined;

/**
 * How background work (a projector batch, a delivery) becomes a span linked to the traces of the
 * events it handled: `work` runs, then `after` says what it handled (undefined: no span, nothing
 * was done). Given by the process when tracing is on (token-authority's linked-spans.ts).
 */
export type LinkedSpans = <T>(
  name: string,
  work: () => Promise<T>,
  after: (result: T) => Promise<LinkedWork | undefined>,
) => Promise<T>;

/** What a piece of background work handled, for its span. */
export interface LinkedWork {
  readonly attributes: Readonly<Record<string, string | number>>;
  readonly links: readonly EventTrace[];
}

interface TraceRow {
  readonly global_position: number | string;
  readonly trace_id: Buffer;
  readonly span_id: Buffer;
}

const traceOfRow = (row: TraceRow): EventTrace => ({
  traceId: row.trace_id.toString('hex'),
  spanId: row.span_id.toString('hex'),
});

const byPosition = (rows: readonly TraceRow[]) =>
  new Map(rows.map((row) => [Number(row.global_position), traceOfRow(row)]));

/** The traces of the events at `positions` that have one (one index probe each). */
export async function tracesOf<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  positions: readonly number[],
): Promise<ReadonlyMap<number, EventTrace>> {
  if (positions.length === 0) return new Map();
  const { rows } = await sql<TraceRow>`
    SELECT global_position, trace_id, span_id FROM event_traces
    WHERE global_position = ANY(${positions.map(String)}::bigint[])`.execute(db);
  return byPosition(rows);
}

/** The traces of a settled range's events (a projector batch), by position. */
export async function tracesInRange<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  range: Pick<LogRange, 'after' | 'through' | 'positions'>,
): Promise<ReadonlyMap<number, EventTrace>> {
  const { rows } = await sql<TraceRow>`
    SELECT t.global_position, t.trace_id, t.span_id
    FROM event_traces t JOIN events e ON e.global_position = t.global_position
    WHERE t.global_position BETWEEN ${range.positions.min}::bigint AND ${range.positions.max}::bigint
      AND ${inRange(range, 'e')}`.execute(db);
  return byPosition(rows);
}
