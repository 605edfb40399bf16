import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { createLogTail, type LogTailReader } from '#event-log/log-tail.js';
import { logHead } from '#event-log/read-log.js';
import type { RecordedEvent } from '#event-log/types.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * The shared poll behind the audit streams (issue 32): one read of the log per tick for every
 * reader of a process, whatever their number, and each reader gets its own space's events, in
 * order, once.
 */
let database: TestDatabase;
let pool: pg.Pool;
let queries = 0;
let db: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase(4);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // The file's database is dropped WITH (FORCE) after it: a connection still closing then hears
  // "terminating connection", which with no listener would be an unhandled error of the run.
  pool.on('error', () => undefined);
  db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => void (event.level === 'query' && queries++),
  });
});
afterAll(() => db.destroy());

const append = (spaceId: string, n: number) =>
  appendToStream(database.db, {
    spaceId,
    stream: newStream(`stream-${randomUUID()}`),
    events: Array.from({ length: n }, (_, i) => ({
      eventId: randomUUID(),
      type: 'test-event',
      data: { i },
      metadata: { actor: 'test' },
    })),
  });

describe('one poll of the log per process', () => {
  it('ten readers of five spaces cost the queries of one, and each gets exactly its space', async () => {
    const tail = createLogTail(db, { pollMs: 100, pageSize: 500, failed: () => undefined });
    try {
      const start = await logHead(database.db);
      const spaces = Array.from({ length: 5 }, (_, i) => `space-tail-${i}`);
      const got = new Map<LogTailReader, RecordedEvent[]>();
      for (let i = 0; i < 10; i++) {
        const events: RecordedEvent[] = [];
        const reader = {
          spaceId: spaces[i % 5]!,
          deliver: (e: readonly RecordedEvent[]) => void events.push(...e),
        };
        got.set(reader, events);
        expect(tail.join(reader, start)).toBe(true);
      }
      for (const [i, space] of spaces.entries()) await append(space, i + 1);
      await waitUntil(() => [...got.values()].every((events) => events.length > 0), Boolean, {
        timeoutMs: 5000,
      });
      for (const [reader, events] of got) {
        const size = spaces.indexOf(reader.spaceId) + 1;
        expect(events.map((event) => event.spaceId)).toEqual(Array(size).fill(reader.spaceId));
        expect(events.map((event) => (event.data as { i: number }).i)).toEqual(
          Array.from({ length: size }, (_, i) => i),
        );
      }
      // Quiet now: count the queries of ten ticks. Two a tick (the head, then the read), not
      // two per reader.
      const before = queries;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const perTick = (queries - before) / 10;
      expect(perTick).toBeGreaterThan(1);
      expect(perTick).toBeLessThanOrEqual(2.4);
    } finally {
      tail.close();
    }
  });

  it('a reader behind the poll is refused until it has read up to it; then nothing is lost or repeated', async () => {
    const tail = createLogTail(db, { pollMs: 50, pageSize: 500, failed: () => undefined });
    try {
      const early = await logHead(database.db);
      await append('space-late', 3);
      const first: RecordedEvent[] = [];
      expect(
        tail.join(
          { spaceId: 'space-other', deliver: (e) => void first.push(...e) },
          await logHead(database.db),
        ),
      ).toBe(true);
      const late: RecordedEvent[] = [];
      const reader = {
        spaceId: 'space-late',
        deliver: (e: readonly RecordedEvent[]) => void late.push(...e),
      };
      // The poll stands past `early`: this reader must catch up itself.
      await tail.settled();
      expect(tail.join(reader, early)).toBe(false);
      expect(tail.join(reader, tail.position()!)).toBe(true);
      await append('space-late', 2);
      await waitUntil(
        () => late.length,
        (n) => n >= 2,
        { timeoutMs: 5000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(late.map((event) => (event.data as { i: number }).i)).toEqual([0, 1]);
    } finally {
      tail.close();
    }
  });
});
