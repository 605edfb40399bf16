import { sql } from 'kysely';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { startProjector } from '../../../src/projections/projector.js';
import { createTestDatabase } from '../../support/test-database.js';
import { insertIssuances } from '../../support/bulk-issuances.js';

// Issue 56: a bulk transaction (a history import) was caught up 1,000 events a batch, each
// paying a batch's fixed cost (locks, the checkpoint, a seal row per space it touched).
it('catches up a bulk transaction in growing batches, up to PROJECTOR_CATCH_UP_FACTOR times its size, counting every event once', async () => {
  const database = await createTestDatabase(4);
  const { db } = database;
  const bulk = 20_000;
  await insertIssuances(db, { count: bulk, spaces: 50, clients: 7 });

  const batchSize = 500;
  const catchUpFactor = 8;
  const projector = startProjector({
    db,
    url: database.url,
    projections: PROJECTIONS,
    batchSize,
    catchUpFactor,
    pollIntervalMs: 50,
    logger: pino({ level: 'silent' }),
    seal: true,
    sealIntervalMs: 0,
  });
  try {
    await projector.nextPass();
  } finally {
    await projector.stop();
  }

  const seals = await db
    .selectFrom('log_seals')
    .select(['event_count'])
    .orderBy('seal_number')
    .execute();
  expect(seals.reduce((sum, seal) => sum + seal.event_count, 0)).toBe(bulk);
  // 500, 1,000, 2,000, then 4,000 a seal: 8 seals where batches of 500 made 40.
  expect(Math.max(...seals.map((seal) => seal.event_count))).toBe(batchSize * catchUpFactor);
  expect(seals.length).toBeLessThanOrEqual(8);
  const { rows } = await sql<{ tokens: string }>`
    SELECT sum(private_tokens) AS tokens FROM client_rate_hour`.execute(db);
  expect(Number(rows[0]!.tokens)).toBe(bulk);
});
