import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from 'token-authority-embedded-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_LOG_MIGRATIONS,
  LOG_START,
  createEventStore,
  eventLogMigrated,
  keyedStream,
  migrateEventLog,
  newStream,
  readLog,
  type EventLogTables,
} from '../src/index.js';

/**
 * The log on a real Postgres holding nothing but what its own migration makes (issue 66, item 4):
 * the package's tests take their database along (token-authority-embedded-postgres, a dev
 * dependency), no service and none of its migrations.
 */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
const quiet = { debug: () => {}, info: () => {}, error: () => {} };

let postgres: EmbeddedPostgres;
let baseDir: string;
let pool: pg.Pool;
let db: Kysely<EventLogTables>;

beforeAll(async () => {
  baseDir = await mkdtemp(path.join(tmpdir(), 'event-log-test-'));
  postgres = await startEmbeddedPostgres({
    baseDir,
    port: await freePort(),
    persistent: false,
    logger: quiet,
    // As root in a folder only root may enter (CI's clone), the postgres user's copy lives here.
    stagingRoot: '/var/tmp/token-authority-pg',
  });
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  db = new Kysely<EventLogTables>({ dialect: new PostgresDialect({ pool }) });
}, 180_000);

afterAll(async () => {
  await db?.destroy();
  await postgres?.stop();
  if (baseDir) await rm(baseDir, { recursive: true, force: true });
});

const event = (type: string) => ({ eventId: randomUUID(), type, data: { n: 1 }, metadata: {} });

describe('the event log on Postgres, from its own migration', () => {
  it('migrates once though two processes start together, and says so', async () => {
    expect(await eventLogMigrated(pool)).toBe(false);
    const [first, second] = await Promise.all([migrateEventLog(pool), migrateEventLog(pool)]);
    expect([first, second].flat()).toEqual(EVENT_LOG_MIGRATIONS.map((m) => m.name));
    expect(await eventLogMigrated(pool)).toBe(true);
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM event_partitions WHERE ends_at > now()',
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(3);
  });

  it('appends new and keyed streams, refuses a stale version, and reads them in order', async () => {
    const store = createEventStore(db, { listeners: [] });
    const token = newStream(`token-${randomUUID()}`);
    const client = keyedStream(`client-${randomUUID()}`);
    await store.append({ spaceId: 'space-a', stream: token, events: [event('issued')] });
    await store.append({ spaceId: 'space-a', stream: client, events: [event('created')] });
    await store.append({
      spaceId: 'space-a',
      stream: client,
      expectedVersion: 1,
      events: [event('renamed')],
    });
    expect(
      await store.append({
        spaceId: 'space-a',
        stream: client,
        expectedVersion: 1,
        events: [event('stale')],
      }),
    ).toMatchObject({ ok: false, error: 'version_conflict', expected: 1, actual: 2 });
    const page = await readLog(db, { after: LOG_START, limit: 10 });
    expect(page.events.map((e) => [e.streamId, e.streamPosition, e.type])).toEqual([
      [token.streamId, 1, 'issued'],
      [client.streamId, 1, 'created'],
      [client.streamId, 2, 'renamed'],
    ]);
  });

  it('keeps the log append-only, on the table and on a partition named directly', async () => {
    await expect(pool.query('DELETE FROM events')).rejects.toThrow(/append-only/);
    const { rows } = await pool.query<{ name: string }>(
      'SELECT partition_name AS name FROM event_partitions ORDER BY starts_at LIMIT 1',
    );
    await expect(pool.query(`UPDATE ${rows[0]!.name} SET event_type = 'x'`)).rejects.toThrow(
      /append-only/,
    );
  });
});
