// The event log's front door: the store, its streams, reading and partitions. The statements and
// append internals under them stay inside the package.
export {
  createEventStore,
  type AppendListener,
  type EventStore,
  type InlineProjection,
  type StoreTransaction,
} from './event-store.js';
export {
  isNewStream,
  keyedStream,
  madeStreamId,
  newStream,
  type KeyedStream,
  type NewStream,
  type StreamRef,
} from './stream-ref.js';
export {
  EVENT_COLUMNS,
  LOG_START,
  toRecordedEvent,
  type EventRow,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
} from './types.js';
export { logTables, type EventLogTables, type EventsTable, type LogDatabase } from './table.js';
export {
  createBatchedAppender,
  type AppendQueue,
  type AppendQueueFactory,
  type BatchedAppender,
  type BatchedAppenderOptions,
} from './batched-appender.js';
export { AppendRefusedError, isMissingPartition, type AppendRefusal } from './errors.js';
export {
  RequestDeadline,
  deadlineOf,
  deadlinesHeld,
  withDeadline,
  withinDeadline,
  type AppendDeadline,
} from './append-deadline.js';
export {
  isAfter,
  logHead,
  positionOf,
  readLog,
  LogKeyRepeatedError,
  type LogPage,
} from './read-log.js';
export { inRange, nextLogRange, type LogRange, type PositionSpan } from './log-range.js';
export { createLogTail, type LogTail, type LogTailReader } from './log-tail.js';
export { EVENTS_CHANNEL, createAppendNotifier, type AppendNotifier } from './notify.js';
export {
  applyMigrations,
  eventLogMigrated,
  migrateEventLog,
  migrationsApplied,
  type MigrationSet,
} from './migrate.js';
export { EVENT_LOG_LOCKS, EVENT_LOG_MIGRATIONS, type Migration } from './schema.js';
export {
  configurePartitioning,
  ensurePartitions,
  keepPartitionsAhead,
  partitionHorizon,
  type PartitionLog,
  type PartitionRound,
} from './partitions.js';
export {
  tracesInRange,
  tracesOf,
  type EventTrace,
  type LinkedSpans,
  type LinkedWork,
  type TraceOf,
} from './event-traces.js';
