import { sql, type Kysely, type Transaction } from 'kysely';
import { logTables, type EventLogTables, type LogDatabase } from './table.js';
import { insertEvents, streamRows, type Inserted, type StreamDigest } from './insert-events.js';
import {
  EVENT_COLUMNS,
  toRecordedEvent,
  type EventRow,
  type NewEvent,
  type RecordedEvent,
} from './types.js';
import type { EventTrace } from './event-traces.js';
import { isNewStream, madeStreamId, type StreamRef } from './stream-ref.js';

/** What to append, and where. */
export interface AppendInput {
  readonly spaceId: string;
  /** As the registry made it: how it is written (stream-ref.ts). */
  readonly stream: StreamRef;
  /** A keyed stream's last position, which the append must find; absent: it must not exist. */
  readonly expectedVersion?: number;
  readonly events: readonly NewEvent[];
  /** The request's trace, recorded beside the events (event-traces.ts), never in them. */
  readonly trace?: EventTrace;
  /** What only the stream's subject holds, digested, kept beside the events (insert-events.ts). */
  readonly digest?: StreamDigest;
}

/** Runs inside the append's transaction: what must commit with the events (see EventStore). */
export type TransactionProjection<DB extends EventLogTables = EventLogTables> = (
  trx: Transaction<DB>,
  events: readonly RecordedEvent[],
) => Promise<void>;

/** The outcome of an append. Expected failures are values, not exceptions. */
export type AppendResult =
  | { readonly ok: true; readonly duplicate: false; readonly events: readonly RecordedEvent[] }
  /** Every event id was already in the log: a retry. `events` are the originals. */
  | { readonly ok: true; readonly duplicate: true; readonly events: readonly RecordedEvent[] }
  | {
      readonly ok: false;
      readonly error: 'version_conflict';
      /** 0: the stream was to be new. */
      readonly expected: number;
      readonly actual: number;
    };

/**
 * Appends events to one stream atomically, with an optimistic version check.
 *
 * The log is partitioned by time, so no unique key can span a stream's versions: the check runs
 * under a transaction lock on the stream, held until commit, so two appends at the same version
 * cannot both pass it. A conflict writes nothing. A retry with event ids already in the log
 * returns the stored originals instead of duplicating them.
 *
 * A new stream with nothing inline is one INSERT without the lock (stream-ref.ts): its name is
 * new by construction, and the INSERT refuses it when it is there. A keyed one is always checked.
 */
export async function appendToStream<DB extends EventLogTables>(
  db: Kysely<DB>,
  input: AppendInput,
  inline?: TransactionProjection<DB>,
): Promise<AppendResult> {
  if (input.events.length === 0) throw new Error('appendToStream: no events to append');
  if (isNewStream(input.stream) && !inline) return insertNew(db, input);
  return db.transaction().execute(async (trx) => {
    const result = await appendChecked(trx, input);
    if (result.ok && !result.duplicate) await inline?.(trx, result.events);
    return result;
  });
}

/** A new stream's one INSERT, unchecked: the INSERT leaves it out when the stream is there. */
export const insertNew = async <DB extends EventLogTables>(
  db: LogDatabase<DB>,
  input: AppendInput,
): Promise<AppendResult> => written(db, input, await insertEvents(db, rowsOf(input, 0)));

/** The append checked under the stream's lock, held until `trx` ends. */
export async function appendChecked<DB extends EventLogTables>(
  trx: Transaction<DB>,
  input: AppendInput,
): Promise<AppendResult> {
  const streamId = madeStreamId(input.stream);
  // `<space>/<stream>`: a user of this key space names its own locks apart (a leading `/`, say).
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${input.spaceId}/${streamId}`}, 0))`.execute(
    trx,
  );
  const current = await streamVersion(trx, input.spaceId, streamId);
  const expected = expectedOf(input);
  if (expected !== current) {
    const originals = await findEvents(trx, input);
    if (originals) return { ok: true, duplicate: true, events: originals };
    return { ok: false, error: 'version_conflict', expected, actual: current };
  }
  return written(trx, input, await insertEvents(trx, rowsOf(input, current)));
}

/**
 * The answer to an append from what its INSERT wrote: all of it (a new append); none of it
 * because the stream exists, holding these very events (a retry: the originals) or others (a
 * version conflict); a part of it is a bug of the caller.
 */
export async function written<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  input: AppendInput,
  inserted: Inserted,
): Promise<AppendResult> {
  if (inserted.duplicates.length === 0) {
    return { ok: true, duplicate: false, events: inserted.events };
  }
  if (inserted.events.length > 0) {
    throw new Error('appendToStream: an append both started and continued a stream');
  }
  const originals = await findEvents(db, input);
  if (originals) return { ok: true, duplicate: true, events: originals };
  return {
    ok: false,
    error: 'version_conflict',
    expected: expectedOf(input),
    actual: await streamVersion(db, input.spaceId, input.stream.streamId),
  };
}

/** The last position of a stream, 0 when it has no events. */
export async function streamVersion<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  spaceId: string,
  streamId: string,
): Promise<number> {
  const row = await logTables(db)
    .selectFrom('events')
    .select((eb) => eb.fn.max('stream_position').as('version'))
    .where('space_id', '=', spaceId)
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

async function findEvents<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  input: AppendInput,
): Promise<RecordedEvent[] | undefined> {
  const ids = input.events.map((event) => event.eventId);
  const rows = (await logTables(db)
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .where('space_id', '=', input.spaceId)
    .where('stream_id', '=', input.stream.streamId)
    .where('event_id', 'in', ids)
    .orderBy('global_position')
    .execute()) as EventRow[];
  const sameAppend =
    rows.length === ids.length && rows.every((row) => row.stream_id === input.stream.streamId);
  return sameAppend ? rows.map(toRecordedEvent) : undefined;
}

/** The version an append must find: none for a new stream, whatever a caller said. */
const expectedOf = (input: AppendInput) =>
  isNewStream(input.stream) ? 0 : (input.expectedVersion ?? 0);

/** Rows for the append, after position `after` (exported for the group commit). */
export const rowsOf = (input: AppendInput, after: number) =>
  streamRows(input.spaceId, input.stream.streamId, input.events, after, input);
