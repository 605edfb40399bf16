import type { Kysely, Transaction } from 'kysely';
import type { EventLogTables } from './table.js';
import {
  appendChecked,
  appendToStream,
  insertNew,
  type AppendInput,
  type AppendResult,
} from './append-to-stream.js';
import { createBatchedAppender, type BatchedAppenderOptions } from './batched-appender.js';
import { isNewStream } from './stream-ref.js';
import type { RecordedEvent } from './types.js';
import type { TraceOf } from './event-traces.js';
import { withinDeadline, type AppendDeadline } from './append-deadline.js';
import { AppendRefusedError } from './errors.js';

/** Told of every event the store committed (not of duplicates): NOTIFY, metrics. */
export type AppendListener = (events: readonly RecordedEvent[]) => void;

/**
 * Runs in an append's transaction with `Writes`, the read-model writes the store offers (made by
 * its `writes` option): they commit with the events or not at all.
 */
export type InlineProjection<Writes> = (
  writes: Writes,
  events: readonly RecordedEvent[],
) => Promise<void>;

/**
 * The event log as commands see it: the only way they write. `Writes` is what an inline
 * projection is handed; the store knows nothing of read models itself.
 */
export interface EventStore<Writes = unknown> {
  /**
   * The one append: to one stream at the version expected, `inline` projections in the same
   * transaction. A new stream with nothing inline (an issued token, a failure) is
   * group-committed with its neighbours; a keyed one is checked under its lock (stream-ref.ts).
   */
  append(input: AppendInput, inline?: InlineProjection<Writes>): Promise<AppendResult>;
  /**
   * One transaction for a decision that reads state under a lock through `Writes` and appends to
   * several streams (the signing keys, the sinks): every append is announced once the
   * transaction committed. Held, before its commit, to the deadline its first request-naming
   * append finds: one that appends nothing naming a request is held to none.
   */
  transact<T>(work: (tx: StoreTransaction<Writes>) => Promise<T>): Promise<T>;
  /** Appends waiting for a group commit. */
  queued(): number;
}

/**
 * Inside {@link EventStore.transact}: the store's read-model reads and writes in the transaction
 * (never the transaction itself), and appends to it (a new stream unchecked, a keyed one under
 * its lock); one that finds its stream there throws, rolling the transaction back.
 */
export interface StoreTransaction<Writes = unknown> {
  readonly writes: Writes;
  append(input: AppendInput): Promise<readonly RecordedEvent[]>;
}

/**
 * The append path with its announcements built in: every committed append is passed to each
 * listener, so no command has to remember to wake the projector or count a metric.
 */
export function createEventStore<DB extends EventLogTables, Writes = unknown>(
  db: Kysely<DB>,
  options: {
    /** What inline projections are handed, made of the append's transaction. */
    readonly writes?: (trx: Transaction<DB>) => Writes;
    readonly listeners: readonly AppendListener[];
    /** Told of every append that failed (database away, queue full, timeout), not of conflicts. */
    readonly failed?: (error: unknown) => void;
    /** Group commit of new streams with nothing inline; without it each is its own INSERT. */
    readonly batching?: BatchedAppenderOptions;
    /** The request's trace at each append, recorded beside its events; absent: tracing off. */
    readonly traceOf?: TraceOf;
    /** The deadline of the request an append serves (its events name it): past it, nothing is written. */
    readonly deadlineOf?: (input: AppendInput) => AppendDeadline | undefined;
  },
): EventStore<Writes> {
  const batched = options.batching && createBatchedAppender(db, options.batching);
  const announce = (result: AppendResult): AppendResult => {
    if (result.ok && !result.duplicate) {
      for (const listener of options.listeners) listener(result.events);
    }
    return result;
  };
  const writesOf = (trx: Transaction<DB>): Writes => {
    if (!options.writes) throw new Error('createEventStore: this store was made without `writes`');
    return options.writes(trx);
  };
  const fail = (error: unknown): never => {
    options.failed?.(error);
    throw error;
  };
  const { traceOf, deadlineOf } = options;
  // Read at the call, in the request's context (a group commit writes later, outside it).
  const traced = (input: AppendInput): AppendInput => {
    const trace = traceOf?.();
    return trace ? { ...input, trace } : input;
  };
  return {
    append: (asked, inline) => {
      const input = traceOf ? traced(asked) : asked;
      const deadline = deadlineOf?.(input);
      if (isNewStream(input.stream) && !inline && batched) {
        return batched.append(input, deadline).then(announce, fail);
      }
      const project =
        inline &&
        ((trx: Transaction<DB>, events: readonly RecordedEvent[]) => inline(writesOf(trx), events));
      return withinDeadline(
        deadline,
        () => appendToStream(db, input, project),
        (r) => r.ok,
      ).then(announce, fail);
    },
    transact: async (work) => {
      const appended: RecordedEvent[] = [];
      // The request's whose events the transaction appends; none appended, nothing to hold back.
      let deadline: AppendDeadline | undefined;
      let began = false;
      let committed = false;
      try {
        const result = await db.transaction().execute(async (trx) => {
          const done = await work({
            get writes() {
              return writesOf(trx);
            },
            append: async (asked) => {
              const input = traceOf ? traced(asked) : asked;
              deadline ??= deadlineOf?.(input);
              const result = isNewStream(input.stream)
                ? await insertNew(trx, input)
                : await appendChecked(trx, input);
              if (!result.ok || result.duplicate) {
                throw new Error(`transact: stream ${input.stream.streamId} is not as expected`);
              }
              appended.push(...result.events);
              return result.events;
            },
          });
          // Checked last, before the commit: the reads under lock may have waited past it.
          if (deadline && !(began = deadline.begin())) {
            throw new AppendRefusedError('deadline_passed');
          }
          return done;
        });
        committed = true;
        if (appended.length > 0) announce({ ok: true, duplicate: false, events: appended });
        return result;
      } catch (error) {
        return fail(error);
      } finally {
        if (began) deadline!.end(committed);
      }
    },
    queued: () => batched?.queued() ?? 0,
  };
}
