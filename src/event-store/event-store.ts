import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  appendToStream,
  type AppendInput,
  type AppendResult,
  type InlineProjection,
} from './append-to-stream.js';
import { createBatchedAppender, type BatchedAppenderOptions } from './batched-appender.js';
import type { RecordedEvent } from './types.js';

/** Told of every event the store committed (not of duplicates): NOTIFY, metrics. */
export type AppendListener = (events: readonly RecordedEvent[]) => void;

/** The event log as commands see it: the only way they write. */
export interface EventStore {
  /** Optimistic append to one stream; `inline` projections commit in the same transaction. */
  append(input: AppendInput, inline?: InlineProjection): Promise<AppendResult>;
  /** A brand-new stream (an issued token, a failure): group-committed with its neighbours. */
  appendNewStream(input: Omit<AppendInput, 'expectedVersion'>): Promise<AppendResult>;
  /** Appends waiting for a group commit. */
  queued(): number;
}

/**
 * The append path with its announcements built in: every committed append is passed to each
 * listener, so no command has to remember to wake the projector or count a metric.
 */
export function createEventStore(
  db: Kysely<Database>,
  options: {
    readonly listeners: readonly AppendListener[];
    /** Told of every append that failed (database away, queue full, timeout), not of conflicts. */
    readonly failed?: (error: unknown) => void;
    readonly batching?: BatchedAppenderOptions;
  },
): EventStore {
  const batched = createBatchedAppender(db, options.batching);
  const announce = (result: AppendResult): AppendResult => {
    if (result.ok && !result.duplicate) {
      for (const listener of options.listeners) listener(result.events);
    }
    return result;
  };
  const fail = (error: unknown): never => {
    options.failed?.(error);
    throw error;
  };
  return {
    append: (input, inline) => appendToStream(db, input, inline).then(announce, fail),
    appendNewStream: (input) =>
      batched.append({ ...input, expectedVersion: 'no_stream' }).then(announce, fail),
    queued: () => batched.queued(),
  };
}
