import type { AppendInput, AppendResult } from '#event-log/append-to-stream.js';
import type { EventStore } from '#event-log/event-store.js';
import type { RecordedEvent } from '#event-log/types.js';
import { isNewStream, madeStreamId } from '#event-log/stream-ref.js';
import type { Credential } from '../../src/domain/credential/state.js';
import type { Token } from '../../src/domain/token/state.js';
import type { IdempotentResponse } from '../../src/projections/idempotent-responses.js';
import type { InlineWrites } from '../../src/projections/inline-writes.js';
import { ConflictError } from '../../src/errors/errors.js';

/** The read models the commands write inline, as maps. */
export interface MemoryReadModels {
  /** By client id. */
  readonly credentials: Map<string, Credential>;
  /** By jti. */
  readonly revocations: Map<string, { readonly spaceId: string; readonly token: Token }>;
  /** By `${spaceId}:${keyHash}`. */
  readonly idempotentResponses: Map<string, IdempotentResponse>;
}

/** The event store port in memory, for handler tests without Postgres. */
export interface InMemoryEventStore {
  readonly store: EventStore<InlineWrites>;
  /** Every committed event, in log order. */
  readonly log: readonly RecordedEvent[];
  readonly models: MemoryReadModels;
}

/**
 * The same contract as Postgres's store (packages/event-log/src/append-to-stream.ts): an append checks
 * its stream's version, is atomic with its inline writes (staged, applied only when all of them
 * succeeded), and a retry with event ids already logged returns the originals. Appends are
 * serialised, as the stream lock serialises them in Postgres; handlers still interleave between
 * their reads and their appends, which is where the races under test live.
 */
export function createInMemoryEventStore(now: () => number = Date.now): InMemoryEventStore {
  const log: RecordedEvent[] = [];
  const models: MemoryReadModels = {
    credentials: new Map(),
    revocations: new Map(),
    idempotentResponses: new Map(),
  };
  let transactions = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };

  const record = (input: AppendInput, from: number) => {
    const transactionId = String(++transactions);
    return input.events.map((event, index): RecordedEvent => ({
      globalPosition: log.length + index + 1,
      transactionId,
      spaceId: input.spaceId,
      streamId: input.stream.streamId,
      streamPosition: from + index + 1,
      eventId: event.eventId,
      type: event.type,
      schemaVersion: event.schemaVersion ?? 1,
      data: event.data,
      metadata: event.metadata,
      recordedAt: new Date(now()),
    }));
  };

  const append = (
    input: AppendInput,
    inline?: (writes: InlineWrites, events: readonly RecordedEvent[]) => Promise<void>,
  ): Promise<AppendResult> =>
    serialised(async () => {
      if (input.events.length === 0) throw new Error('append: no events to append');
      const streamId = madeStreamId(input.stream);
      const ids = new Set(input.events.map((event) => event.eventId));
      const logged = log.filter((event) => ids.has(event.eventId));
      if (logged.length === ids.size) return { ok: true, duplicate: true, events: logged };
      if (logged.length > 0) throw new Error('append: some of these event ids are already logged');
      const actual = log.filter(
        (e) => e.spaceId === input.spaceId && e.streamId === streamId,
      ).length;
      // A new stream must not be there (Postgres's INSERT refuses it); a keyed one is as expected.
      const expected = isNewStream(input.stream) ? 0 : (input.expectedVersion ?? 0);
      if (expected !== actual) return { ok: false, error: 'version_conflict', expected, actual };
      const events = record(input, actual);
      const staged: Array<() => void> = [];
      await inline?.(stagedWrites(models, staged), events);
      for (const apply of staged) apply();
      log.push(...events);
      return { ok: true, duplicate: false, events };
    });

  const store: EventStore<InlineWrites> = {
    append,
    transact: (work) =>
      work({
        get writes(): InlineWrites {
          return noSql('transactions');
        },
        append: async (input) => {
          const result = await append(input);
          if (!result.ok || result.duplicate) throw new Error('transact: stream not as expected');
          return result.events;
        },
      }),
    queued: () => 0,
  };
  return { store, log, models };
}

/** What the in-memory store cannot do: read under a transaction, as Postgres does. */
function noSql(what: string): never {
  throw new Error(
    `the in-memory store runs no SQL (${what}): handlers that read under a transaction (the signing keys, the sinks) are tested on Postgres (test/integration)`,
  );
}

/** Inline writes collected to be applied when the whole append succeeds. */
function stagedWrites(models: MemoryReadModels, staged: Array<() => void>): InlineWrites {
  return {
    credential: async (state) =>
      void staged.push(() => models.credentials.set(state.clientId, state)),
    tokenRevocation: async (spaceId, token) => {
      if (token.revokedAt === null) return;
      staged.push(() => models.revocations.set(token.jti, { spaceId, token }));
    },
    idempotentResponse: async (response) => {
      const key = `${response.spaceId}:${response.keyHash}`;
      // The primary key of idempotent_responses: one kept response per key, the first wins.
      if (models.idempotentResponses.has(key)) {
        throw new ConflictError('another request with this Idempotency-Key was answered first');
      }
      staged.push(() => models.idempotentResponses.set(key, response));
    },
    authorizationState: async () => noSql('authorization states'),
    get keyRing(): InlineWrites['keyRing'] {
      return noSql('the key ring');
    },
  };
}
