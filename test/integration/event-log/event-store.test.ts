import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendToStream } from '#event-log/append-to-stream.js';
import { createBatchedAppender } from '#event-log/batched-appender.js';
import { keyedStream, newStream } from '#event-log/stream-ref.js';
import { readLog } from '#event-log/read-log.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { checkLogTreeInDatabase } from '../../../src/audit-trail/prove/log-tree-evidence.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { sealEnd } from '../../../src/audit-trail/seal/seal-ranges.js';
import { compareLogPositions } from '#audit-log/check/log-order.js';
import {
  LOG_START,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
} from '#event-log/types.js';
import { connect } from '../../../src/db/database.js';
import { isDatabaseUnavailable } from '../../../src/db/postgres-errors.js';
import { AppendRefusedError } from '#event-log/errors.js';
import { createFairQueue } from '#rate-limit/fair-queue.js';
import { withPort } from '../../support/database-url.js';
import { freePortBelow32768 } from '../../support/postgres-source.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { tempDir } from '../../support/after-file.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(30);
});

const SPACE = 'space-es';
const event = (data: Record<string, unknown> = {}): NewEvent => ({
  eventId: randomUUID(),
  type: 'test-event',
  data,
  metadata: { actor: 'test' },
});

async function readAll(after: LogPosition = LOG_START): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await readLog(database.db, { after: cursor, limit: 500 });
    if (page.events.length === 0) return all;
    all.push(...page.events);
    cursor = page.last;
  }
}

describe('appendToStream', () => {
  it('lets exactly one of many concurrent appends at the same expected version win', async () => {
    const streamId = `stream-${randomUUID()}`;
    await appendToStream(database.db, {
      spaceId: SPACE,
      stream: keyedStream(streamId),
      events: [event()],
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        appendToStream(database.db, {
          spaceId: SPACE,
          stream: keyedStream(streamId),
          expectedVersion: 1,
          events: [event({ i })],
        }),
      ),
    );
    const winners = results.filter((result) => result.ok);
    const losers = results.filter((result) => !result.ok);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(19);
    for (const loser of losers) {
      expect(loser).toMatchObject({ ok: false, error: 'version_conflict', expected: 1, actual: 2 });
    }
    const rows = await database.db
      .selectFrom('events')
      .select('stream_position')
      .where('stream_id', '=', streamId)
      .execute();
    expect(rows.map((row) => row.stream_position).sort()).toEqual([1, 2]);
  });

  it('writes nothing when the expected version is wrong', async () => {
    const streamId = `stream-${randomUUID()}`;
    const result = await appendToStream(database.db, {
      spaceId: SPACE,
      stream: keyedStream(streamId),
      expectedVersion: 3,
      events: [event(), event()],
    });
    expect(result).toEqual({ ok: false, error: 'version_conflict', expected: 3, actual: 0 });
    const count = await database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('stream_id', '=', streamId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('stores every one of many parallel appends to distinct streams exactly once', async () => {
    const streams = Array.from({ length: 200 }, () => `par-${randomUUID()}`);
    const results = await Promise.all(
      streams.map((streamId) =>
        appendToStream(database.db, {
          spaceId: SPACE,
          stream: newStream(streamId),
          events: [event(), event()],
        }),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    const rows = await database.db
      .selectFrom('events')
      .select(['stream_id', 'event_id'])
      .where('stream_id', 'in', streams)
      .execute();
    expect(rows).toHaveLength(400);
    expect(new Set(rows.map((row) => row.event_id)).size).toBe(400);
  });

  it('returns the original events when an append is retried with the same event ids', async () => {
    const streamId = `idem-${randomUUID()}`;
    const events = [event({ n: 1 })];
    const first = await appendToStream(database.db, {
      spaceId: SPACE,
      stream: newStream(streamId),
      events,
    });
    const retry = await appendToStream(database.db, {
      spaceId: SPACE,
      stream: newStream(streamId),
      events,
    });
    expect(first.ok && !first.duplicate).toBe(true);
    expect(retry).toMatchObject({ ok: true, duplicate: true });
    expect(retry.ok && retry.events[0]?.globalPosition).toBe(
      first.ok && first.events[0]?.globalPosition,
    );
    const rows = await database.db
      .selectFrom('events')
      .select('event_id')
      .where('stream_id', '=', streamId)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it.each([
    ['new', newStream],
    ['keyed', keyedStream],
  ] as const)(
    'refuses to start a %s stream the log already holds, when its events are not the ones there',
    async (_kind, named) => {
      const streamId = `taken-${randomUUID()}`;
      const stream = named(streamId);
      await appendToStream(database.db, {
        spaceId: SPACE,
        stream,
        events: [event({ n: 1 })],
      });
      const second = await appendToStream(database.db, {
        spaceId: SPACE,
        stream,
        events: [event({ n: 2 })],
      });
      expect(second).toEqual({ ok: false, error: 'version_conflict', expected: 0, actual: 1 });
      const rows = await database.db
        .selectFrom('events')
        .select('stream_position')
        .where('stream_id', '=', streamId)
        .execute();
      expect(rows).toHaveLength(1);
    },
  );

  it('runs the inline projection in the same transaction: if it fails, the events are not stored', async () => {
    const streamId = `inline-${randomUUID()}`;
    await expect(
      appendToStream(
        database.db,
        { spaceId: SPACE, stream: keyedStream(streamId), events: [event()] },
        async () => {
          throw new Error('projection failed');
        },
      ),
    ).rejects.toThrow('projection failed');
    const rows = await database.db
      .selectFrom('events')
      .select('event_id')
      .where('stream_id', '=', streamId)
      .execute();
    expect(rows).toHaveLength(0);
  });
});

describe('readLog', () => {
  it('delivers a transaction that took its position first and committed last, without skipping or repeating', async () => {
    const before = await readAll();
    const cursorAtStart =
      before.length > 0
        ? {
            transactionId: before.at(-1)!.transactionId,
            globalPosition: before.at(-1)!.globalPosition,
          }
        : LOG_START;

    const slow = new pg.Client({ connectionString: database.url });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const early = await slow.query<{ global_position: string }>(
        `INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
         VALUES ($1, $2, 1, $3, 'slow', '{}') RETURNING global_position`,
        [SPACE, `slow-${randomUUID()}`, randomUUID()],
      );
      const earlyPosition = Number(early.rows[0]!.global_position);

      const fast = await appendToStream(database.db, {
        spaceId: SPACE,
        stream: newStream(`fast-${randomUUID()}`),
        events: [event()],
      });
      const fastPosition = fast.ok ? fast.events[0]!.globalPosition : -1;
      expect(fastPosition).toBeGreaterThan(earlyPosition);

      // The reader runs while the slow transaction is open: it must not move past it.
      const whileOpen = await readLog(database.db, { after: cursorAtStart, limit: 1000 });
      expect(whileOpen.events.map((e) => e.globalPosition)).not.toContain(fastPosition);

      await slow.query('COMMIT');
      const delivered = [...whileOpen.events, ...(await readAll(whileOpen.last))].map(
        (e) => e.globalPosition,
      );
      expect(delivered).toContain(earlyPosition);
      expect(delivered).toContain(fastPosition);
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(delivered.indexOf(earlyPosition)).toBeLessThan(delivered.indexOf(fastPosition));
    } finally {
      await slow.end();
    }
  });

  it('a reader that already read later positions still receives a late commit', async () => {
    const slow = new pg.Client({ connectionString: database.url });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      // Takes an xid and a position now, commits after others.
      await slow.query(
        `INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
         VALUES ($1, $2, 1, $3, 'late', '{}')`,
        [SPACE, `late-${randomUUID()}`, randomUUID()],
      );
      for (let i = 0; i < 5; i++) {
        await appendToStream(database.db, {
          spaceId: SPACE,
          stream: newStream(`after-${randomUUID()}`),
          events: [event()],
        });
      }
      const seenBefore = await readAll();
      await slow.query('COMMIT');
      const resumeFrom = seenBefore.at(-1) ?? LOG_START;
      const after = await readAll(
        'eventId' in resumeFrom
          ? { transactionId: resumeFrom.transactionId, globalPosition: resumeFrom.globalPosition }
          : resumeFrom,
      );
      const everything = [...seenBefore, ...after];
      expect(everything.filter((e) => e.type === 'late')).toHaveLength(1);
      const ids = everything.map((e) => e.eventId);
      expect(new Set(ids).size).toBe(ids.length);
      const total = await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(everything).toHaveLength(Number(total.n));
    } finally {
      await slow.end();
    }
  });
});

describe('append-only enforcement', () => {
  it.each([
    ['UPDATE', `UPDATE events SET event_type = 'changed'`],
    ['DELETE', 'DELETE FROM events'],
    ['TRUNCATE', 'TRUNCATE events'],
  ])('rejects %s on events', async (_op, statement) => {
    await expect(database.pool.query(statement)).rejects.toThrow(/append-only/);
  });

  it.each([
    ['UPDATE', `UPDATE log_seals SET event_count = 1`],
    ['DELETE', 'DELETE FROM log_seals'],
    ['UPDATE', `UPDATE space_ranges SET last_sequence = 1`],
    ['TRUNCATE', 'TRUNCATE space_ranges'],
    ['UPDATE', `UPDATE merkle_checkpoints SET note = ''`],
    ['DELETE', 'DELETE FROM merkle_checkpoints'],
  ])('rejects %s on the seals and the signed tree heads', async (_op, statement) => {
    await expect(database.pool.query(statement)).rejects.toThrow(/append-only/);
  });
});

describe('log tree', () => {
  it('seals committed events in ranges and checks, then names the seal or head of an event altered, deleted, reordered or slipped in behind the triggers', async () => {
    for (let i = 0; i < 10; i++) {
      await appendToStream(database.db, {
        spaceId: SPACE,
        stream: newStream(`chain-${i}-${randomUUID()}`),
        events: [event({ i })],
      });
    }
    while ((await sealLog(database.db, 7)) > 0);
    const auditKey = await loadAuditSigningKey(undefined, await tempDir('log-tree-key-'));
    await signTreeHeads(database.db, (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin('https://issuer.test', treeId), size, root),
    );
    const check = () =>
      checkLogTreeInDatabase(database.db, { publicKey: auditKey.publicKey, pageSize: 4 });
    const clean = await check();
    const total = await database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const seals = await database.db.selectFrom('log_seals').selectAll().execute();
    expect(clean).toMatchObject({
      ok: true,
      eventsChecked: Number(total.n),
      sealsChecked: seals.length,
      archivedSeals: 0,
      unanchoredEvents: 0,
    });
    // One row per range of at most 7 events, not one per event.
    expect(seals.length).toBe(Math.ceil(Number(total.n) / 7));

    const { rows } = await database.pool.query<{
      global_position: number;
      transaction_id: string;
    }>(
      `SELECT global_position, transaction_id::text FROM events
       WHERE space_id = $1 ORDER BY transaction_id DESC, global_position DESC OFFSET 3 LIMIT 1`,
      [SPACE],
    );
    const victim = rows[0]!;
    // The seal whose range holds the victim: the first that ends at or after it.
    const holder = seals
      .filter(
        (seal) =>
          compareLogPositions(sealEnd(seal), {
            transactionId: victim.transaction_id,
            globalPosition: victim.global_position,
          }) >= 0,
      )
      .sort((a, b) => a.seal_number - b.seal_number)[0]!;
    const breakAt = (reason: string) => ({
      ok: false,
      reason,
      sealNumber: holder.seal_number,
    });
    const client = await database.pool.connect();
    const asSuperuser = async (statement: string, values: unknown[] = []) => {
      // What a superuser could do: switch triggers off for the session and edit rows.
      await client.query(`SET session_replication_role = replica`);
      try {
        await client.query(statement, values);
      } finally {
        await client.query(`RESET session_replication_role`);
      }
    };
    try {
      const { rows: saved } = await client.query(
        `SELECT * FROM events WHERE space_id = $1 AND global_position = $2`,
        [SPACE, victim.global_position],
      );
      await asSuperuser(
        `UPDATE events SET data = '{"i": 999}' WHERE space_id = $1 AND global_position = $2`,
        [SPACE, victim.global_position],
      );
      // An edit keeps the counts: the signed head over the victim's leaf names it.
      expect(await check()).toMatchObject({
        ok: false,
        reason: 'event_altered',
        treeSize: Number(total.n),
      });
      await asSuperuser(
        `UPDATE events SET data = $3 WHERE space_id = $1 AND global_position = $2`,
        [SPACE, victim.global_position, JSON.stringify(saved[0].data)],
      );
      expect((await check()).ok).toBe(true);

      // Reordered: the victim and the event after it swap their contents, counts unchanged.
      const { rows: pair } = await client.query(
        `SELECT global_position, data FROM events WHERE space_id = $1
         ORDER BY transaction_id DESC, global_position DESC OFFSET 2 LIMIT 2`,
        [SPACE],
      );
      const swap = (to: (typeof pair)[number], from: (typeof pair)[number]) =>
        asSuperuser(`UPDATE events SET data = $3 WHERE space_id = $1 AND global_position = $2`, [
          SPACE,
          to.global_position,
          JSON.stringify(from.data),
        ]);
      await swap(pair[0], pair[1]);
      await swap(pair[1], pair[0]);
      expect(await check()).toMatchObject({ ok: false, reason: 'event_altered' });
      await swap(pair[0], pair[0]);
      await swap(pair[1], pair[1]);
      expect((await check()).ok).toBe(true);

      await asSuperuser(`DELETE FROM events WHERE space_id = $1 AND global_position = $2`, [
        SPACE,
        victim.global_position,
      ]);
      expect(await check()).toMatchObject(breakAt('event_missing'));

      const original = saved[0] as Record<string, unknown>;
      const columns = Object.keys(original);
      const insert = (spaceId: string) =>
        asSuperuser(
          `INSERT INTO events (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
           VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          columns.map((column) =>
            column === 'space_id'
              ? spaceId
              : column === 'data' || column === 'metadata'
                ? JSON.stringify(original[column])
                : original[column],
          ),
        );
      await insert(SPACE);
      expect((await check()).ok).toBe(true);
      // A forged event placed inside the sealed range, in commit order beside the victim.
      await insert('forged-space');
      expect(await check()).toMatchObject(breakAt('event_added'));
      await asSuperuser(`DELETE FROM events WHERE space_id = 'forged-space'`);
      expect((await check()).ok).toBe(true);

      // The heads themselves: a head of another key, and a head removed while its file stays.
      const headDir = await tempDir('log-heads-');
      const { rows: heads } = await client.query<{ tree_size: string; note: string }>(
        `SELECT tree_size, note FROM merkle_checkpoints WHERE space_id = ''`,
      );
      const headFiles = new Map(heads.map((head) => [Number(head.tree_size), head.note]));
      await writeFile(path.join(headDir, 'unused'), '');
      const withFiles = () =>
        checkLogTreeInDatabase(database.db, { publicKey: auditKey.publicKey, headFiles });
      expect((await withFiles()).ok).toBe(true);
      const otherKey = await loadAuditSigningKey(undefined, headDir);
      const size = Number(heads[0]!.tree_size);
      const setNote = (note: string) =>
        asSuperuser(
          `UPDATE merkle_checkpoints SET note = $1 WHERE space_id = '' AND tree_size = $2`,
          [note, size],
        );
      await setNote(
        signTreeHead(otherKey, treeOrigin('https://issuer.test', ''), size, Buffer.alloc(32)),
      );
      expect(await withFiles()).toMatchObject({
        ok: false,
        reason: 'tree_head_forged',
        treeSize: size,
      });
      await setNote(heads[0]!.note);
      await asSuperuser(`DELETE FROM merkle_checkpoints WHERE space_id = ''`);
      expect(await withFiles()).toMatchObject({
        ok: false,
        reason: 'tree_head_missing',
        treeSize: size,
      });
      await asSuperuser(
        `INSERT INTO merkle_checkpoints (space_id, tree_size, note) VALUES ('', $1, $2)`,
        [size, heads[0]!.note],
      );
      expect((await withFiles()).ok).toBe(true);

      // A cut tail: the last events and their seal's record gone, the signed head stays.
      await asSuperuser(
        `DELETE FROM events WHERE (transaction_id, global_position) >
           (SELECT last_transaction_id, last_position FROM log_seals ORDER BY seal_number LIMIT 1)`,
      );
      await asSuperuser(`DELETE FROM log_seals WHERE seal_number > 1`);
      expect(await check()).toMatchObject({ ok: false, reason: 'event_missing', treeSize: size });
    } finally {
      client.release();
    }
  });
});

describe('log tree: a forged event at a page boundary', () => {
  // Issue 50: the check pages by (transaction_id, global_position); a row slipped in with the key
  // of another was skipped whenever it fell at a page boundary (Postgres 18 put it there by the
  // luck of a page size). Placed there on purpose here, and inside a page, on every major.
  it('names the seal of an event slipped in with the position of another, at the end of a page and inside one', async () => {
    const own = await createTestDatabase(4);
    for (let i = 0; i < 12; i++) {
      await appendToStream(own.db, {
        spaceId: SPACE,
        stream: newStream(`boundary-${i}-${randomUUID()}`),
        events: [event({ i })],
      });
    }
    while ((await sealLog(own.db, 5)) > 0);
    const auditKey = await loadAuditSigningKey(undefined, await tempDir('boundary-key-'));
    await signTreeHeads(own.db, (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin('https://issuer.test', treeId), size, root),
    );
    const PAGE = 4;
    const check = () =>
      checkLogTreeInDatabase(own.db, { publicKey: auditKey.publicKey, pageSize: PAGE });
    expect(await check()).toMatchObject({ ok: true, eventsChecked: 12 });
    const { rows: ordered } = await own.pool.query<Record<string, unknown>>(
      `SELECT * FROM events ORDER BY transaction_id, global_position`,
    );
    const client = await own.pool.connect();
    try {
      // The last event of the first page, then one inside the second.
      for (const index of [PAGE - 1, PAGE + 1]) {
        const victim = ordered[index]!;
        const columns = Object.keys(victim);
        const { rows: holder } = await client.query<{ seal_number: string }>(
          `SELECT seal_number FROM log_seals
            WHERE (last_transaction_id, last_position) >= ($1::xid8, $2::bigint)
            ORDER BY seal_number LIMIT 1`,
          [victim.transaction_id, victim.global_position],
        );
        await client.query(`SET session_replication_role = replica`);
        await client.query(
          `INSERT INTO events (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
           VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          columns.map((column) =>
            column === 'space_id'
              ? 'forged-space'
              : column === 'data' || column === 'metadata'
                ? JSON.stringify(victim[column])
                : victim[column],
          ),
        );
        expect(await check(), `forged beside event ${index}`).toMatchObject({
          ok: false,
          reason: 'event_added',
          sealNumber: Number(holder[0]!.seal_number),
        });
        await client.query(`DELETE FROM events WHERE space_id = 'forged-space'`);
        await client.query(`RESET session_replication_role`);
        expect((await check()).ok).toBe(true);
      }
    } finally {
      client.release();
    }
  });
});

/** The service's append queue (its fair queue) with these bounds, as the appender is given it. */
const fairQueue =
  (bounds: { maxQueued?: number; maxQueuedPerSpace?: number; maxWaitMs?: number } = {}) =>
  <Item>(expired: (items: readonly Item[]) => void) =>
    createFairQueue<Item>({
      maxQueued: bounds.maxQueued ?? 10_000,
      maxQueuedPerSpace: bounds.maxQueuedPerSpace ?? bounds.maxQueued ?? 10_000,
      maxWaitMs: bounds.maxWaitMs ?? 5_000,
      expired,
    });

describe('createBatchedAppender (group commit)', () => {
  it('commits many concurrent new streams together and answers each with its own event', async () => {
    const appender = createBatchedAppender(database.db, {
      queue: fairQueue(),
      maxBatch: 64,
      maxInFlight: 2,
    });
    const inputs = Array.from({ length: 300 }, (_, i) => ({
      spaceId: SPACE,
      stream: newStream(`batched-${i}-${randomUUID()}`),
      events: [event({ i })],
    }));
    const results = await Promise.all(inputs.map((input) => appender.append(input)));
    results.forEach((result, i) => {
      expect(result.ok && !result.duplicate).toBe(true);
      expect(result.ok && result.events[0]).toMatchObject({
        streamId: inputs[i]!.stream.streamId,
        eventId: inputs[i]!.events[0]!.eventId,
        data: { i },
      });
    });
    // Fewer transactions than appends: that is the point.
    const transactions = new Set(
      results.map((result) => result.ok && result.events[0]!.transactionId),
    );
    expect(transactions.size).toBeLessThan(300);
    const rows = await database.db
      .selectFrom('events')
      .select(['stream_id', 'global_position'])
      .where(
        'stream_id',
        'in',
        inputs.map((input) => input.stream.streamId),
      )
      .execute();
    expect(rows).toHaveLength(300);
    expect(
      new Map(
        results.map((r) => [r.ok && r.events[0]!.streamId, r.ok && r.events[0]!.globalPosition]),
      ),
    ).toEqual(new Map(rows.map((row) => [row.stream_id, row.global_position])));
  });

  it("batches new streams alone: keyed ones are checked under the stream's lock, so one of many starts a stream", async () => {
    const appender = createBatchedAppender(database.db, { queue: fairQueue() });
    const streamId = `shared-key-${randomUUID()}`;
    const starts = Array.from({ length: 10 }, (_, i) => ({
      spaceId: SPACE,
      stream: keyedStream(streamId),
      events: [event({ i })],
    }));
    const results = await Promise.all(starts.map((input) => appender.append(input)));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    for (const loser of results.filter((result) => !result.ok)) {
      expect(loser).toEqual({ ok: false, error: 'version_conflict', expected: 0, actual: 1 });
    }
    const rows = await database.db
      .selectFrom('events')
      .select('stream_position')
      .where('stream_id', '=', streamId)
      .execute();
    expect(rows.map((row) => Number(row.stream_position))).toEqual([1]);
  });

  it('refuses one append whose data the database cannot hold without failing the others in its batch', async () => {
    const appender = createBatchedAppender(database.db, { queue: fairQueue(), maxInFlight: 1 });
    const oneNew = (data: Record<string, unknown> = {}) => ({
      spaceId: SPACE,
      stream: newStream(`bytes-${randomUUID()}`),
      events: [event(data)],
    });
    // As above: the appends after a lone one queue behind it and go out as one batch.
    const blocker = appender.append(oneNew());
    const good = Array.from({ length: 6 }, () => oneNew({ text: 'fine' }));
    const pending = [
      appender.append(oneNew({ text: 'a\u0000b' })).then(
        () => 'stored',
        () => 'refused',
      ),
      ...good.map((input) => appender.append(input)),
    ];
    expect(appender.queued()).toBe(7);
    const [poisoned, ...others] = await Promise.all(pending);
    expect((await blocker).ok).toBe(true);
    expect(poisoned).toBe('refused');
    expect(others.every((result) => typeof result === 'object' && result.ok)).toBe(true);
    const stored = await database.db
      .selectFrom('events')
      .select('stream_id')
      .where(
        'stream_id',
        'in',
        good.map((input) => input.stream.streamId),
      )
      .execute();
    expect(stored).toHaveLength(6);
  });

  it('answers a retried event as a duplicate without failing the others in its batch', async () => {
    const appender = createBatchedAppender(database.db, { queue: fairQueue(), maxInFlight: 1 });
    const oneNew = () => ({
      spaceId: SPACE,
      stream: newStream(`fresh-${randomUUID()}`),
      events: [event()],
    });
    const original = oneNew();
    const first = await appender.append(original);
    // A lone append goes out at once; the seven after it queue behind it and form one batch,
    // which the retried event id makes fail as a whole statement.
    const blocker = appender.append(oneNew());
    const fresh = Array.from({ length: 6 }, oneNew);
    const pending = [appender.append(original), ...fresh.map((input) => appender.append(input))];
    expect(appender.queued()).toBe(7);
    const [retry, ...others] = await Promise.all(pending);
    expect((await blocker).ok).toBe(true);
    expect(retry).toMatchObject({ ok: true, duplicate: true });
    expect(retry!.ok && retry!.events[0]!.globalPosition).toBe(
      first.ok && first.events[0]!.globalPosition,
    );
    expect(others.every((result) => result.ok && !result.duplicate)).toBe(true);
    const stored = await database.db
      .selectFrom('events')
      .select('stream_id')
      .where(
        'stream_id',
        'in',
        [original, ...fresh].map((input) => input.stream.streamId),
      )
      .execute();
    expect(stored).toHaveLength(7);
  });

  it('fails a whole batch with the database error when the database cannot take it, without retrying append by append', async () => {
    const down = connect({
      url: withPort(database.url, await freePortBelow32768()),
      poolSize: 2,
      applicationName: 'test-down',
      idleInTransactionTimeoutMs: 1000,
    });
    try {
      const appender = createBatchedAppender(down.db, { queue: fairQueue() });
      const inputs = Array.from({ length: 5 }, () => ({
        spaceId: SPACE,
        stream: newStream(`down-${randomUUID()}`),
        events: [event()],
      }));
      const outcomes = await Promise.allSettled(inputs.map((input) => appender.append(input)));
      const reasons = outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason);
      expect(reasons.every((reason) => isDatabaseUnavailable(reason))).toBe(true);
      // The four that queued behind the first share one failed statement's error: no fan-out.
      expect(new Set(reasons.slice(1)).size).toBe(1);
    } finally {
      await down.close();
    }
  });

  it('gives each space a fair share of the queue: one space filling its share leaves another its appends', async () => {
    // Room for three; without shares the flood would take all three and refuse the neighbour.
    const appender = createBatchedAppender(database.db, {
      queue: fairQueue({ maxQueued: 3, maxQueuedPerSpace: 2, maxWaitMs: 2000 }),
    });
    const locker = await database.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE events IN EXCLUSIVE MODE');
      const oneNew = (spaceId: string) => ({
        spaceId,
        stream: newStream(`fair-${randomUUID()}`),
        events: [event()],
      });
      const inFlight = appender.append(oneNew('space-flood'));
      const flood = [1, 2].map(() => appender.append(oneNew('space-flood')));
      await expect(appender.append(oneNew('space-flood'))).rejects.toBeInstanceOf(
        AppendRefusedError,
      );
      const neighbour = appender.append(oneNew('space-quiet'));
      await locker.query('ROLLBACK');
      expect((await neighbour).ok).toBe(true);
      for (const append of [inFlight, ...flood]) expect((await append).ok).toBe(true);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
  });

  it('refuses new appends at once when its queue is full, and expires appends that waited too long', async () => {
    const appender = createBatchedAppender(database.db, {
      queue: fairQueue({ maxQueued: 3, maxWaitMs: 300 }),
    });
    const locker = await database.pool.connect();
    try {
      // Hold the events table so the batch in flight stalls, as a stuck database would.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE events IN EXCLUSIVE MODE');
      const oneNew = () => ({
        spaceId: SPACE,
        stream: newStream(`stalled-${randomUUID()}`),
        events: [event()],
      });
      const inFlight = appender.append(oneNew());
      const queued = [1, 2, 3].map(() => appender.append(oneNew()));
      const startedAt = Date.now();
      await expect(appender.append(oneNew())).rejects.toBeInstanceOf(AppendRefusedError);
      // Refused at once, not after a queue timeout (a busy machine's scheduler adds tens of ms).
      expect(Date.now() - startedAt).toBeLessThan(500);
      for (const waiting of queued)
        await expect(waiting).rejects.toBeInstanceOf(AppendRefusedError);
      expect(Date.now() - startedAt).toBeLessThan(5000);
      await locker.query('ROLLBACK');
      // The one already sent was written once the table was free; the expired ones never were.
      expect((await inFlight).ok).toBe(true);
      const { rows } = await database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE stream_id LIKE 'stalled-%'`,
      );
      expect(rows[0]!.n).toBe(1);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
  });
});
