import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertEvents, streamRows } from './insert-events.js';
import {
  EVENT_COLUMNS,
  toRecordedEvent,
  type EventRow,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
} from './types.js';

/** What to append, and where. */
export interface AppendInput {
  readonly spaceId: string;
  readonly streamId: string;
  readonly expectedVersion: ExpectedVersion;
  readonly events: readonly NewEvent[];
}

/** Runs inside the append's transaction: inline projections that must commit with the events. */
export type InlineProjection = (
  trx: Transaction<Database>,
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
      readonly expected: ExpectedVersion;
      readonly actual: number;
    };

class VersionMismatch extends Error {
  constructor(readonly actual: number) {
    super('version mismatch');
  }
}

/**
 * Appends events to one stream atomically, with an optimistic version check.
 *
 * A conflict writes nothing. A retry with event ids already in the log returns the stored
 * originals instead of duplicating them; racing appends are never silently dropped (no
 * ON CONFLICT DO NOTHING): the unique keys make the loser fail, and we tell it why.
 */
export async function appendToStream(
  db: Kysely<Database>,
  input: AppendInput,
  inline?: InlineProjection,
): Promise<AppendResult> {
  if (input.events.length === 0) throw new Error('appendToStream: no events to append');
  try {
    // A brand-new stream with nothing inline is one INSERT: no transaction round trips.
    if (input.expectedVersion === 'no_stream' && !inline) {
      return { ok: true, duplicate: false, events: await insertEvents(db, rowsOf(input, 0)) };
    }
    return await db.transaction().execute(async (trx) => {
      const current = await streamVersion(trx, input.spaceId, input.streamId);
      const expected = input.expectedVersion === 'no_stream' ? 0 : input.expectedVersion;
      if (expected !== 'any' && expected !== current) throw new VersionMismatch(current);
      const events = await insertEvents(trx, rowsOf(input, current));
      await inline?.(trx, events);
      return { ok: true, duplicate: false, events } as const;
    });
  } catch (error) {
    const conflict =
      error instanceof VersionMismatch ||
      isUniqueViolation(error, 'events_stream_position_key') ||
      isUniqueViolation(error, 'events_event_id_key');
    if (!conflict) throw error;
    const originals = await findEvents(db, input);
    if (originals) return { ok: true, duplicate: true, events: originals };
    if (isUniqueViolation(error, 'events_event_id_key')) {
      // Same id, different stream or a partial overlap: not a retry of this append.
      throw new Error('appendToStream: event id already used by a different append', {
        cause: error,
      });
    }
    return {
      ok: false,
      error: 'version_conflict',
      expected: input.expectedVersion,
      actual:
        error instanceof VersionMismatch
          ? error.actual
          : await streamVersion(db, input.spaceId, input.streamId),
    };
  }
}

/** The last position of a stream, 0 when it has no events. */
export async function streamVersion(
  db: Kysely<Database>,
  spaceId: string,
  streamId: string,
): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('stream_position').as('version'))
    .where('space_id', '=', spaceId)
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

async function findEvents(
  db: Kysely<Database>,
  input: AppendInput,
): Promise<RecordedEvent[] | undefined> {
  const ids = input.events.map((event) => event.eventId);
  const rows = (await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .where('space_id', '=', input.spaceId)
    .where('event_id', 'in', ids)
    .orderBy('global_position')
    .execute()) as EventRow[];
  const sameAppend =
    rows.length === ids.length && rows.every((row) => row.stream_id === input.streamId);
  return sameAppend ? rows.map(toRecordedEvent) : undefined;
}

const rowsOf = (input: AppendInput, after: number) =>
  streamRows(input.spaceId, input.streamId, input.events, after);

/** True for a Postgres unique violation on the named constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string } | null;
  return pgError?.code === '23505' && pgError.constraint === constraint;
}

/** True for a Postgres unique violation on any constraint. */
export function isAnyUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}
