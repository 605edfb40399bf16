import { sql, type RawBuilder } from 'kysely';
import { executePrepared } from './prepared-statements.js';
import type { EventLogTables, LogDatabase } from './table.js';
import type { NewEvent, RecordedEvent } from './types.js';
import { AppendRefusedError, isMissingPartition } from './errors.js';
import type { EventTrace } from './event-traces.js';

/** One event with the place in its stream it must take. */
export interface EventToInsert {
  readonly spaceId: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly event: NewEvent;
  /**
   * Whether its append starts the stream: then none of its rows goes in if the stream exists (a
   * retry), not only the first. Checking position 1 alone let a retried two-event start write its
   * second event again.
   */
  readonly startsStream: boolean;
  /** The request's trace, written beside the event (event-traces.ts); absent: nothing is. */
  readonly trace?: EventTrace;
  readonly digest?: StreamDigest;
}

/**
 * A digest of what only the stream's subject holds (a token's signature), written beside the
 * event in the same statement, never in it (no leaf, export or delivery carries it), kept in
 * `stream_digests` until `expiresAt`.
 */
export interface StreamDigest {
  readonly digest: Buffer;
  readonly expiresAt: Date;
}

/** What an append writes beside its events. */
export type Beside = { readonly trace?: EventTrace; readonly digest?: StreamDigest };

/** What one INSERT wrote: the events in the order given, and the ids it left out. */
export interface Inserted {
  readonly events: readonly RecordedEvent[];
  /** Ids of events that would have started a stream the log already holds: not written. */
  readonly duplicates: readonly string[];
}

/**
 * The one INSERT into the event log, for single appends and group commits alike. One parameter
 * whatever the number of rows, a JSON array (one native JSON.stringify, where eight Postgres array
 * literals cost the API 3.5 times as much CPU escaping every JSON payload again), and only what
 * the database assigned comes back. An event that would start a stream the space's log already
 * holds is left out (one hash-index probe; the log is partitioned by time, so no unique key can
 * say it) and its id returned in `duplicates`: the callers tell a retry from a conflict.
 *
 * `OFFSET 0` keeps that probe one index lookup per row whatever the statistics say: without it,
 * on a young log the planner hashes the whole log once per INSERT instead (a "hashed SubPlan"),
 * and the prepared plan kept doing so as the log grew, until the next ANALYZE (measured: 0.6 ms
 * of Postgres CPU per token in the bench's first minute, 0.03 ms with the probe).
 */
export async function insertEvents<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  rows: readonly EventToInsert[],
): Promise<Inserted> {
  const beside = rows.some((row) => row.trace !== undefined || row.digest !== undefined);
  const statement = beside
    ? executePrepared(db, 'insert-events-beside', insertBesideStatement(rows))
    : executePrepared(db, 'insert-events', insertStatement(rows));
  const { rows: written } = await statement.catch((error: unknown) => {
    throw isMissingPartition(error)
      ? new AppendRefusedError('no_partition', { cause: error })
      : error;
  });
  const assigned = new Map(written.map((row) => [row.event_id, row]));
  const events: RecordedEvent[] = [];
  const duplicates: string[] = [];
  for (const { spaceId, streamId, streamPosition, event } of rows) {
    const row = assigned.get(event.eventId);
    if (!row) {
      duplicates.push(event.eventId);
      continue;
    }
    events.push({
      globalPosition: row.global_position,
      transactionId: row.transaction_id,
      spaceId,
      streamId,
      streamPosition,
      eventId: event.eventId,
      type: event.type,
      schemaVersion: event.schemaVersion ?? 1,
      data: event.data,
      metadata: event.metadata,
      recordedAt: row.recorded_at,
    });
  }
  return { events, duplicates };
}

type Assigned = {
  event_id: string;
  global_position: number;
  transaction_id: string;
  recorded_at: Date;
};

/** The INSERT into `events` of the rows named `n` in `source`, each stream's start checked. */
const insertFrom = (source: RawBuilder<unknown>) => sql<Assigned>`
  INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type,
                      schema_version, data, metadata)
  SELECT n.space_id, n.stream_id, n.stream_position, n.event_id, n.event_type, n.schema_version,
         n.data, n.metadata
  FROM ${source}
  WHERE NOT n.starts_stream OR NOT EXISTS (
    SELECT 1 FROM events e WHERE e.stream_id = n.stream_id AND e.space_id = n.space_id
    OFFSET 0)
  RETURNING event_id, global_position, transaction_id::text AS transaction_id, recorded_at`;

const COLUMNS = sql`space_id text, stream_id text, stream_position bigint, event_id uuid,
  event_type text, schema_version int, data jsonb, metadata jsonb, starts_stream boolean`;

/** The INSERT of {@link insertEvents}: its text is the same whatever the rows (one JSON array). */
export function insertStatement(rows: readonly EventToInsert[]) {
  return insertFrom(sql`jsonb_to_recordset(${JSON.stringify(rows.map(jsonRow))}::jsonb)
    AS n(${COLUMNS})`);
}

/**
 * The same INSERT when some rows carry a trace or a digest: in the same statement (so the same
 * commit), each written event's trace goes to `event_traces` under the position it was given, its
 * digest to `stream_digests`. Only such appends run it; the others the INSERT above, unchanged.
 */
function insertBesideStatement(rows: readonly EventToInsert[]) {
  const json = rows.map((row) => ({
    ...jsonRow(row),
    trace_id: row.trace?.traceId ?? null,
    span_id: row.trace?.spanId ?? null,
    digest: row.digest?.digest.toString('hex') ?? null,
    expires_at: row.digest?.expiresAt.toISOString() ?? null,
  }));
  return sql<Assigned>`
  WITH n AS MATERIALIZED (
    SELECT * FROM jsonb_to_recordset(${JSON.stringify(json)}::jsonb)
      AS n(${COLUMNS}, trace_id text, span_id text, digest text, expires_at timestamptz)),
  written AS (${insertFrom(sql`n`)}),
  traced AS (
    INSERT INTO event_traces (global_position, space_id, trace_id, span_id)
    SELECT w.global_position, n.space_id, decode(n.trace_id, 'hex'), decode(n.span_id, 'hex')
    FROM written w JOIN n ON n.event_id = w.event_id
    WHERE n.trace_id IS NOT NULL),
  digested AS (
    INSERT INTO stream_digests (space_id, stream_id, digest, expires_at)
    SELECT n.space_id, n.stream_id, decode(n.digest, 'hex'), n.expires_at
    FROM written w JOIN n ON n.event_id = w.event_id
    WHERE n.digest IS NOT NULL ON CONFLICT DO NOTHING)
  SELECT * FROM written`;
}

const jsonRow = (row: EventToInsert) => ({
  space_id: row.spaceId,
  stream_id: row.streamId,
  stream_position: row.streamPosition,
  event_id: row.event.eventId,
  event_type: row.event.type,
  schema_version: row.event.schemaVersion ?? 1,
  data: row.event.data,
  metadata: row.event.metadata,
  starts_stream: row.startsStream,
});

/** Rows for `events` appended to one stream right after position `after`, what is beside them. */
export function streamRows(
  spaceId: string,
  streamId: string,
  events: readonly NewEvent[],
  after: number,
  { trace, digest }: Beside = {},
): EventToInsert[] {
  return events.map((event, index) => ({
    spaceId,
    streamId,
    streamPosition: after + index + 1,
    event,
    startsStream: after === 0,
    ...(trace ? { trace } : {}),
    ...(digest ? { digest } : {}),
  }));
}
