import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/wait.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { ADVISORY_LOCK } from '../../../src/db/advisory-locks.js';
import { catchUp, projectNextBatch, rebuildProjection } from '../../../src/projections/batches.js';
import { startProjector } from '../../../src/projections/projector.js';
import { checkLogTreeInDatabase } from '../../../src/audit-trail/prove/log-tree-evidence.js';
import type { Projection } from '../../../src/projections/projection.js';
import { ratesProjection } from '../../../src/projections/rates.js';
import {
  projectedAudit,
  projectedRates,
  recomputedAudit,
  recomputedRates,
  snapshotViews,
} from '../../../tools/reliability/recompute.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { BURST_LIMITS, mixedBurst } from '../../support/workload.js';
import { tempDir } from '../../support/after-file.js';

let service: TestService;
let burst: Awaited<ReturnType<typeof mixedBurst>>;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  service = await startTestService(BURST_LIMITS);
  burst = await mixedBurst(service, 1200);
}, 300_000);

async function expectViewsMatchEvents(): Promise<void> {
  const pool = service.database.pool;
  expect(await projectedAudit(pool)).toEqual(await recomputedAudit(pool));
  expect(await projectedRates(pool, 'minute')).toEqual(await recomputedRates(pool, 'minute'));
  expect(await projectedRates(pool, 'hour')).toEqual(await recomputedRates(pool, 'hour'));
}

async function eventCount(): Promise<number> {
  const { rows } = await service.database.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM events',
  );
  return rows[0]!.n;
}

const projectorScript = path.resolve('src/cli/projector.ts');

/** `npm run projector` as its own process on the test database. */
async function spawnProjectorProcess(env: Record<string, string> = {}) {
  return spawn(process.execPath, ['--import', 'tsx', projectorScript], {
    env: {
      ...process.env,
      DATABASE_URL: service.database.url,
      LOG_LEVEL: 'silent',
      DATA_DIR: await tempDir('proj-'),
      ...env,
    },
    stdio: 'ignore',
  });
}

/** The sessions holding the projector leader's lock, by the name each gives (its pid). */
async function leaderLockHolders() {
  const { rows } = await service.database.pool.query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::bigint << 32) | l.objid::bigint) = ${ADVISORY_LOCK.projectorLeader}`,
  );
  return rows;
}

describe('projector', () => {
  it('after a burst of 1000+ mixed operations, both views equal a recomputation from the raw events', async () => {
    expect(
      burst.credentials + burst.private + burst.public + burst.failures,
    ).toBeGreaterThanOrEqual(1000);
    expect(burst.failures).toBeGreaterThan(0);
    const projector = startProjector({
      db: service.database.db,
      url: service.database.url,
      projections: PROJECTIONS,
      batchSize: 97,
      pollIntervalMs: 50,
      logger: silent,
      seal: true,
    });
    await projector.nextPass();
    await projector.stop();
    await expectViewsMatchEvents();
    const { rows } = await service.database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM audit_log',
    );
    expect(rows[0]!.n).toBe(await eventCount());
  });

  it('rolls back the rows of a batch that dies before its checkpoint commits', async () => {
    await appendIssued(1);
    const dying: Projection = {
      ...ratesProjection,
      async applyRange(trx, range) {
        await ratesProjection.applyRange(trx, range);
        throw new Error('process died here');
      },
    };
    const before = await projectedRates(service.database.pool, 'minute');
    await expect(projectNextBatch(service.database.db, dying, 100)).rejects.toThrow(
      'process died here',
    );
    expect(await projectedRates(service.database.pool, 'minute')).toEqual(before);
    await catchUp(service.database.db, ratesProjection, 100);
    await expectViewsMatchEvents();
  });

  it('a projector process killed (SIGKILL) mid-batch and restarted leaves nothing missing and nothing counted twice', async () => {
    await rebuildReset();
    // node itself (not the tsx wrapper, which would forward the signal to a grandchild) so that
    // SIGKILL really kills the projector mid-batch.
    const child = spawn(process.execPath, ['--import', 'tsx', projectorScript], {
      env: {
        ...process.env,
        DATABASE_URL: service.database.url,
        PROJECTOR_BATCH_SIZE: '20',
        LOG_LEVEL: 'silent',
        DATA_DIR: await tempDir('proj-'),
      },
      stdio: 'ignore',
    });
    // Kill it once it has projected part of the log, while it is still working.
    const total = await eventCount();
    const projected = async () =>
      (
        await service.database.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events e, projection_checkpoints p
            WHERE p.projection = 'rates'
              AND (e.transaction_id, e.global_position) <= (p.transaction_id, p.global_position)`,
        )
      ).rows[0]!.n;
    await waitUntil(projected, (n) => n > 0);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const reached = await projected();
    expect(reached).toBeGreaterThan(0);
    expect(reached).toBeLessThan(total);
    // The rows match the checkpoint exactly: whatever the kill interrupted was rolled back.
    await catchUp(service.database.db, ratesProjection, 20);
    await expectViewsMatchEvents();
  });

  it('two projectors running at once never double count (advisory lock, and the checkpoint compare-and-set without it)', async () => {
    await rebuildReset();
    const options = {
      db: service.database.db,
      url: service.database.url,
      projections: PROJECTIONS,
      batchSize: 31,
      pollIntervalMs: 20,
      logger: silent,
      seal: false,
      standbyRetryMs: 50,
    };
    const first = startProjector(options);
    const second = startProjector(options);
    // And, bypassing the lock, racing batches straight at the checkpoints.
    await Promise.all(
      Array.from({ length: 6 }, () => catchUp(service.database.db, ratesProjection, 13)),
    );
    const leaders = () => [first.isLeader(), second.isLeader()].filter(Boolean).length;
    await waitUntil(leaders, (n) => n > 0);
    // Watch a few standby retries (every 50 ms): never a second leader.
    const seen = new Set<number>();
    for (let i = 0; i < 12; i++) {
      seen.add(leaders());
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect([...seen]).toEqual([1]);
    await Promise.all([first.stop(), second.stop()]);
    await expectViewsMatchEvents();
  });

  it('a standby takes over within seconds when the leader process dies', async () => {
    const leader = await spawnProjectorProcess();
    try {
      await waitUntil(leaderLockHolders, (holders) => holders.length === 1);
      const standby = startProjector({
        db: service.database.db,
        url: service.database.url,
        projections: PROJECTIONS,
        batchSize: 100,
        pollIntervalMs: 50,
        logger: silent,
        seal: false,
        standbyRetryMs: 100,
      });
      // Several standby retries (every 100 ms) while the leader lives: it stays a standby.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(standby.isLeader()).toBe(false);
      leader.kill('SIGKILL');
      const killedAt = Date.now();
      while (!standby.isLeader() && Date.now() - killedAt < 15_000)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(standby.isLeader()).toBe(true);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      await standby.stop();
    } finally {
      leader.kill('SIGKILL');
    }
  });

  it("a paused leader (SIGSTOP) hands over within 10 s; resumed, it seals nothing twice: the log tree recomputed from the events makes every stored head's root and the views match the events", async () => {
    const leader = await spawnProjectorProcess({ PROJECTOR_POLL_INTERVAL_MS: '20' });
    let appending = true;
    const appender = (async () => {
      while (appending) {
        await appendIssued(5);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      await waitUntil(leaderLockHolders, (rows) => rows.length === 1, { timeoutMs: 20_000 });
      const standby = startProjector({
        db: service.database.db,
        url: service.database.url,
        projections: PROJECTIONS,
        batchSize: 100,
        pollIntervalMs: 50,
        logger: silent,
        seal: true,
        standbyRetryMs: 200,
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(standby.isLeader()).toBe(false);
      // Paused mid-work: its process is alive and its sockets open, but it says nothing.
      leader.kill('SIGSTOP');
      const pausedAt = Date.now();
      while (!standby.isLeader() && Date.now() - pausedAt < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const handedOverAfter = Date.now() - pausedAt;
      expect(standby.isLeader()).toBe(true);
      expect(handedOverAfter).toBeLessThan(10_000);
      // Resumed, the former leader finds its session gone and stands by; it writes nothing.
      leader.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      appending = false;
      await appender;
      await standby.nextPass();
      expect((await leaderLockHolders()).map((row) => row.name)).toEqual([
        `token-authority-projector-leader-${process.pid}`,
      ]);
      const verdict = await checkLogTreeInDatabase(service.database.db, { pageSize: 1000 });
      expect(verdict).toMatchObject({ ok: true });
      await standby.stop();
      await expectViewsMatchEvents();
    } finally {
      appending = false;
      await appender;
      leader.kill('SIGKILL');
    }
  }, 60_000);

  it('a rebuild from zero produces identical rows', async () => {
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 500);
    const before = await snapshotViews(service.database.pool);
    for (const projection of PROJECTIONS)
      await rebuildProjection(service.database.db, projection, 77);
    expect(await snapshotViews(service.database.pool)).toEqual(before);
  });

  it('projects an event whose transaction took its position early and committed late', async () => {
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 500);
    const slow = new pg.Client({ connectionString: service.database.url });
    await slow.connect();
    const lateJti = randomUUID();
    try {
      await slow.query('BEGIN');
      await slow.query(
        `INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data, metadata)
         VALUES ('space-one', $1, 1, $2, 'public-token-issued', $3, '{"actor":"client:ci_late","request_id":"r","client_ip":"127.0.0.1","user_agent":null}')`,
        [
          `token-${lateJti}`,
          randomUUID(),
          JSON.stringify({
            client_id: 'ci_late',
            audience: 'a',
            jti: lateJti,
            parent_jti: 'p',
            customer_id: 'c',
            segment_id: 's',
            issued_at: new Date().toISOString(),
            expires_at: new Date().toISOString(),
          }),
        ],
      );
      await appendIssued(5);
      for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 500);
      await slow.query('COMMIT');
    } finally {
      await slow.end();
    }
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 500);
    await expectViewsMatchEvents();
  });
});

async function rebuildReset(): Promise<void> {
  await service.database.db.transaction().execute(async (trx) => {
    for (const projection of PROJECTIONS) {
      await projection.reset(trx);
      await trx
        .updateTable('projection_checkpoints')
        .set({ transaction_id: '0', global_position: 0 })
        .where('projection', '=', projection.name)
        .execute();
    }
  });
}

/** Appends `count` private-token-issued events straight to the store. */
async function appendIssued(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await appendToStream(service.database.db, {
      spaceId: 'space-one',
      stream: newStream(`token-${randomUUID()}`),
      events: [
        {
          eventId: randomUUID(),
          type: 'private-token-issued',
          data: {
            client_id: 'ci_burst',
            audience: 'a',
            jti: randomUUID(),
            issued_at: new Date().toISOString(),
            expires_at: new Date().toISOString(),
          },
          metadata: {
            actor: 'client:ci_burst',
            request_id: 'r',
            client_ip: '127.0.0.1',
            user_agent: null,
          },
        },
      ],
    });
  }
}
