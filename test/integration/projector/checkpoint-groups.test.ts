import { sql, type Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import { nextLogRange } from '#event-log/log-range.js';
import { advanceCheckpoints, lockCheckpoints } from '../../../src/projections/checkpoints.js';
import { projectNextBatchTogether, rebuildProjection } from '../../../src/projections/batches.js';
import type { Projection } from '../../../src/projections/projection.js';
import { ratesProjection } from '../../../src/projections/rates.js';
import type { Database } from '../../../src/db/schema.js';
import { inRange } from '#event-log/log-range.js';
import { createTestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';
import { insertIssuances } from '../../support/bulk-issuances.js';

const database = await createTestDatabase(4);
const { db } = database;
const TOKENS = 300;

await insertIssuances(db, { count: TOKENS, spaces: 3, clients: 5 });

async function countedTokens(): Promise<number> {
  const { rows } = await sql<{ tokens: string | null }>`
    SELECT sum(private_tokens) AS tokens FROM client_rate_hour`.execute(db);
  return Number(rows[0]?.tokens ?? 0);
}

describe("a group's checkpoints, locked and moved by one statement each", () => {
  it('a group naming a projection twice is refused before anything is applied', async () => {
    await expect(
      projectNextBatchTogether(db, [ratesProjection, ratesProjection], 1000),
    ).rejects.toThrow(/twice/);
    expect(await countedTokens()).toBe(0);
  });

  it('a rebuild started while a batch holds the checkpoint waits for it, and counts every event once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let applied = false;
    // A batch in flight: its rows written, its checkpoint moved, not yet committed.
    const batch = db.transaction().execute(async (trx) => {
      const [from] = await lockCheckpoints(trx, [ratesProjection.name]);
      const range = (await nextLogRange(trx, from!, 1000))!;
      await ratesProjection.applyRange(trx, range);
      expect(await advanceCheckpoints(trx, [ratesProjection.name], from!, range.through)).toBe(
        true,
      );
      applied = true;
      await held;
    });
    await waitUntil(() => applied);
    const rebuild = rebuildProjection(db, ratesProjection, 1000);
    // The rebuild is stuck behind the batch's lock before the batch commits.
    await waitUntil(async () => {
      const { rows } = await database.pool.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]!.waiting;
    });
    release();
    await batch;
    await rebuild;
    expect(await countedTokens()).toBe(TOKENS);
  });

  it('a group whose rows are missing makes them outside its batch, and concurrent batches count every event once', async () => {
    await sql`CREATE TABLE counted (projection text, events int)`.execute(db);
    // Views of the test's own: no checkpoint row exists for them until a batch asks.
    const counting = (name: string): Projection => ({
      name,
      async applyRange(trx: Transaction<Database>, range) {
        await sql`INSERT INTO counted SELECT ${name}, count(*) FROM events e
                  WHERE ${inRange(range, 'e')}`.execute(trx);
      },
      async reset() {},
    });
    const group = [counting('test-b'), counting('test-a'), counting('test-c')];
    const before = await db
      .selectFrom('projection_checkpoints')
      .select('projection')
      .where('projection', 'like', 'test-%')
      .execute();
    expect(before).toEqual([]);
    // A batch that fails after making the rows: they stay, made outside the batch it rolled back.
    const failing: Projection = {
      name: 'test-failing',
      applyRange: () => Promise.reject(new Error('view unwritable')),
      reset: async () => {},
    };
    await expect(projectNextBatchTogether(db, [...group, failing], 50)).rejects.toThrow(
      'view unwritable',
    );
    const made = await db
      .selectFrom('projection_checkpoints')
      .select(['projection', 'global_position'])
      .where('projection', 'like', 'test-%')
      .orderBy('projection')
      .execute();
    expect(made.map((row) => [row.projection, Number(row.global_position)])).toEqual([
      ['test-a', 0],
      ['test-b', 0],
      ['test-c', 0],
      ['test-failing', 0],
    ]);
    expect(await sql`SELECT 1 FROM counted`.execute(db).then((r) => r.rows)).toEqual([]);
    // Four projectors polling at once, each until the log is drained.
    const drain = async () => {
      while ((await projectNextBatchTogether(db, group, 50)) > 0);
    };
    await Promise.all([drain(), drain(), drain(), drain()]);
    const { rows } = await sql<{ projection: string; events: number }>`
      SELECT projection, sum(events)::int AS events FROM counted
      GROUP BY projection ORDER BY projection`.execute(db);
    expect(rows).toEqual([
      { projection: 'test-a', events: TOKENS },
      { projection: 'test-b', events: TOKENS },
      { projection: 'test-c', events: TOKENS },
    ]);
  });
});
