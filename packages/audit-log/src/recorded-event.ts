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
