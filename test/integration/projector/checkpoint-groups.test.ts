import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { nextLogRange } from '#event-log/log-range.js';
import { advanceCheckpoints, lockCheckpoints } from '../../../src/projections/checkpoints.js';
import { projectNextBatchTogether, rebuildProjection } from '../../../src/projections/batches.js';
import { ratesProjection } from '../../../src/projections/rates.js';
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
});
