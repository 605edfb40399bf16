import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { connectOptions } from '../../../src/cli/runtime.js';
import { loadConfig } from '../../../src/config/config.js';
import { connect } from '../../../src/db/database.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { lockCheckpoints } from '../../../src/projections/checkpoints.js';
import { projectNextBatch } from '../../../src/projections/batches.js';
import { ratesProjection } from '../../../src/projections/rates.js';
import { createTestDatabase } from '../../support/test-database.js';
import { insertIssuances } from '../../support/bulk-issuances.js';

const database = await createTestDatabase(2);
await insertIssuances(database.db, { count: 10, spaces: 1, clients: 1 });

// The projector's pool as `npm run projector` opens it (src/cli/projector.ts: background timeouts).
const config = loadConfig({ BACKGROUND_LOCK_TIMEOUT_MS: '300' }, 'worker');
const projector = connect(
  connectOptions(config, pino({ level: 'silent' }), {
    url: database.url,
    poolSize: 1,
    applicationName: 'test-projector',
    timeouts: 'background',
  }),
);
afterAll(() => projector.close());

describe("a background process's lock waits (BACKGROUND_LOCK_TIMEOUT_MS)", () => {
  it('a batch behind a checkpoint another session keeps locked fails with lock-not-available, then runs once it is free', async () => {
    // Once, unheld, so the checkpoint row exists to be held.
    await projectNextBatch(projector.db, ratesProjection, 1);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const locked = new Promise<void>((resolve) => (holding = resolve));
    // A session that keeps the lock (a hung projector, a stuck rebuild): it never lets go alone.
    const holder = database.db.transaction().execute(async (trx) => {
      await lockCheckpoints(trx, [ratesProjection.name]);
      holding();
      await held;
    });
    await locked;
    try {
      // Without a bound this waits as long as the holder does: here, until the test times out.
      await expect(projectNextBatch(projector.db, ratesProjection, 100)).rejects.toMatchObject({
        code: '55P03',
      });
    } finally {
      release();
      await holder;
    }
    expect(await projectNextBatch(projector.db, ratesProjection, 100)).toBe(9);
  });

  it('a request pool keeps its own, shorter bound', () => {
    const request = connectOptions(config, pino({ level: 'silent' }), {
      url: database.url,
      poolSize: 1,
      applicationName: 'test-api',
      timeouts: 'request',
    });
    expect(request.lockTimeoutMs).toBe(config.DATABASE_LOCK_TIMEOUT_MS);
    expect(config.DATABASE_LOCK_TIMEOUT_MS).not.toBe(300);
  });

  it('changing the partition interval behind a reader of the log gives up (55P03) instead of holding every append up', async () => {
    const reader = await database.pool.connect();
    try {
      // A long export or verify: it reads the log, so dropping a partition must wait for it.
      await reader.query('BEGIN');
      await reader.query('SELECT 1 FROM events LIMIT 1');
      // The test's own pool waits on locks without end: only the function's own bound ends this.
      await expect(
        configurePartitioning(database.pool, { interval: '1 day', ahead: 1 }),
      ).rejects.toMatchObject({ code: '55P03' });
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    await configurePartitioning(database.pool, { interval: '1 day', ahead: 1 });
  });
});
