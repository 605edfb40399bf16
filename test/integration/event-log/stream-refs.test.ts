import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEventStore } from '#event-log/event-store.js';
import { createBatchedAppender } from '#event-log/batched-appender.js';
import { createFairQueue } from '#rate-limit/fair-queue.js';
import { accept } from '../../../src/domain/decision.js';
import { streams } from '../../../src/domain/streams.js';
import { handle } from '../../../src/commands/handle.js';
import { recordingDecider } from '../../../src/commands/recording.js';
import { postgresInlineWrites } from '../../../src/projections/inline-writes.js';
import type { NewEvent } from '#event-log/types.js';
import type { Placed } from '../../../src/domain/streams.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(30);
});

const SPACE = 'space-stream-refs';
const event = (): NewEvent => ({
  eventId: randomUUID(),
  type: 'test-event',
  data: {},
  metadata: { actor: 'test' },
});

const positions = async (streamId: string) =>
  (
    await database.db
      .selectFrom('events')
      .select('stream_position')
      .where('space_id', '=', SPACE)
      .where('stream_id', '=', streamId)
      .execute()
  ).map((r) => Number(r.stream_position));

describe('stream refs on Postgres', () => {
  it('metadata first use: many replicas at once settle on one record, none throws', async () => {
    const store = createEventStore(database.db, { writes: postgresInlineWrites, listeners: [] });
    const once = recordingDecider<{ event: NewEvent; placed: Placed }>({
      stream: (c) => c.placed,
      decide: (c) => accept([c.event]),
      once: true,
    });
    const client = `https://client.example/${randomUUID()}`;
    const placed = { spaceId: SPACE, stream: streams.metadataClient(SPACE, client) };
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => handle(store, once, { event: event(), placed })),
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(await positions(placed.stream.streamId)).toEqual([1]);
  });

  it('a keyed name behind a spread-copied new ref is refused, not appended lock-free', async () => {
    const appender = createBatchedAppender(database.db, {
      queue: <Item>(expired: (items: readonly Item[]) => void) =>
        createFairQueue<Item>({
          maxQueued: 100,
          maxQueuedPerSpace: 100,
          maxWaitMs: 5_000,
          expired,
        }),
      maxInFlight: 1,
    });
    const keyed = streams.credential(`victim-${randomUUID()}`).streamId;
    const forged = () => ({
      spaceId: SPACE,
      stream: { ...streams.token('x'), streamId: keyed },
      events: [event()],
    });
    // An unrelated new stream occupies the one batch in flight; the two forged starts would share the next.
    const other = { spaceId: SPACE, stream: streams.token(randomUUID()), events: [event()] };
    const results = await Promise.allSettled([
      appender.append(other),
      appender.append(forged()),
      appender.append(forged()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/not made by newStream/);
    expect(await positions(keyed)).toEqual([]);
  });
});
