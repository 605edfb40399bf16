/**
 * An event as a log records it, the shape every leaf, export line and check of this package
 * reads. A service's own event type fits it as long as it has these fields (token-authority's
 * `RecordedEvent` is this shape); the package never reads a service's store.
 */
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

/** A point in commit-safe log order: the committing transaction's id first, then the position. */
export interface LogPosition {
  readonly transactionId: string;
  readonly globalPosition: number;
}

/**
 * An event as a row spells it: the log's columns, and an export line's event (canonicalEventBytes'
 * field names), where the time is ISO text and positions may be text.
 */
export interface RecordedEventRow {
  readonly global_position: number | string;
  readonly transaction_id: string | number;
  readonly space_id: string;
  readonly stream_id: string;
  readonly stream_position: number | string;
  readonly event_id: string;
  readonly event_type: string;
  readonly schema_version: number;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly recorded_at: Date | string;
}

/**
 * A row as the event it records, for the database's rows and an export's lines alike. Positions
 * are made numbers here, not by a driver's type parser: leaves and links hash them, and a string
 * would not match.
 */
export function recordedEventOf(row: RecordedEventRow): RecordedEvent {
  return {
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
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
  };
}
