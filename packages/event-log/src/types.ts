import type { Selectable } from 'kysely';
import type { EventsTable } from './table.js';

/** An event about to be appended. `eventId` makes the append idempotent. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  readonly eventId: string;
  readonly type: Type;
  readonly schemaVersion?: number;
  readonly data: Data;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** An event as stored in the log. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly globalPosition: number;
  readonly transactionId: string;
  readonly spaceId: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly eventId: string;
  readonly type: Type;
  readonly schemaVersion: number;
  readonly data: Data;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly recordedAt: Date;
}

/**
 * A point in commit-safe log order: readers resume strictly after it (see readLog for why the
 * transaction id comes first).
 */
export interface LogPosition {
  readonly transactionId: string;
  readonly globalPosition: number;
}

/** Before the first event. */
export const LOG_START: LogPosition = Object.freeze({ transactionId: '0', globalPosition: 0 });

/** The raw row shape shared by every query that selects events: the table's row as selected. */
export type EventRow = Selectable<EventsTable>;

/** A selected row as the event it records; positions made numbers (a bigint may come as text). */
export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  globalPosition: Number(row.global_position),
  transactionId: String(row.transaction_id),
  spaceId: row.space_id,
  streamId: row.stream_id,
  streamPosition: Number(row.stream_position),
  eventId: row.event_id,
  type: row.event_type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: (row.metadata ?? {}) as Record<string, unknown>,
  recordedAt: row.recorded_at,
});

/** Columns to select for {@link EventRow}. */
export const EVENT_COLUMNS = [
  'global_position',
  'transaction_id',
  'space_id',
  'stream_id',
  'stream_position',
  'event_id',
  'event_type',
  'schema_version',
  'data',
  'metadata',
  'recorded_at',
] as const;
