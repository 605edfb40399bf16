import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCK } from '../../../src/db/advisory-locks.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { createClients, startLoad, type LoadReport } from '../../../tools/reliability/load.js';
import { afterFile, tempDir } from '../../support/after-file.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { createTestDatabase } from '../../support/test-database.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 49: everything running — the API, the projector and the deliverer with a webhook sink —
 * across two boundaries of one-minute partitions made one ahead, under issuance load, then an
 * archive run. Before the fix the deliverer's session lock shared partition maintenance's key:
 * the second partition was never made, every issuance after the next boundary answered 500, and
 * the archive hung.
 */
const SPACE = 'space-boundary';
const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');
let service: TestService;
let dir: string;
let archiveDir: string;
let report: LoadReport;
let firstPartition: { name: string; ends_at: Date };
let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let tokenEvents: Map<string, { eventId: string; partition: string }>;
let archive: { code: number | string; stdout: string; tries: number; ms: number };

const processEnv = () => ({
  ...process.env,
  DATABASE_URL: service.database.url,
  DATA_DIR: dir,
  MIGRATE_ON_START: 'false',
  EVENT_PARTITION_INTERVAL: '1 minute',
  EVENT_PARTITIONS_AHEAD: '1',
  TOKEN_ISSUER: service.config.TOKEN_ISSUER,
  LOG_LEVEL: 'warn',
  PROJECTOR_POLL_INTERVAL_MS: '100',
});
const spawnCli = (script: string, env: Record<string, string | undefined>): ChildProcess => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(script)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  afterFile(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  return child;
};
const partitionNow = async () =>
  (
    await service.database.pool.query<{ name: string; ends_at: Date }>(
      `SELECT partition_name AS name, ends_at FROM event_partitions
        WHERE starts_at <= now() AND now() < ends_at`,
    )
  ).rows[0]!;
const delivererHoldsItsLock = async () =>
  (
    await service.database.pool.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
          AND ((classid::bigint << 32) | objid::bigint) = $1`,
      [ADVISORY_LOCK.deliverer],
    )
  ).rowCount === 1;

beforeAll(async () => {
  dir = await tempDir('partition-boundary-');
  archiveDir = path.join(dir, 'archive');
  const database = await createTestDatabase(20);
  // The migration step's partitioning, before anything is written: one-minute partitions, one
  // made ahead (the template's empty monthly partition is dropped and made again).
  await configurePartitioning(database.pool, { interval: '1 minute', ahead: 1 });
  service = await startTestService(
    {
      EVENT_PARTITION_INTERVAL: '1 minute',
      EVENT_PARTITIONS_AHEAD: '1',
      ARCHIVE_DIR: archiveDir,
      TOKEN_AUDIENCES: 'storefront.api.local',
    },
    undefined,
    { database, dataDir: dir },
  );
  const secret = newWebhookSecret();
  webhook = await startWebhookReceiver(secret);
  afterFile(() => webhook.close());
  spawnCli('src/cli/projector.ts', processEnv());
  spawnCli('src/cli/deliver.ts', {
    ...processEnv(),
    AUDIT_SINKS: JSON.stringify([
      { id: 'boundary-webhook', kind: 'webhook', url: webhook.url, secret },
    ]),
  });
  await waitUntil(delivererHoldsItsLock, Boolean, { timeoutMs: 60_000, intervalMs: 200 });

  const login = await service.loginToken([SPACE]);
  const clients = await createClients(service.baseUrl, login, SPACE, 4);
  firstPartition = await partitionNow();
  expect(firstPartition.ends_at.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
  // Load until two boundaries have passed: the first makes a partition due (with the old key,
  // its maintenance waits on the deliverer), the second needs it.
  const load = startLoad(service.baseUrl, clients, 4);
  const until = firstPartition.ends_at.getTime() + 60_000 + 10_000;
  await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
  report = await load.stop();

  // Each acknowledged token's event and the partition it went to (the archive drops the first).
  const { rows } = await service.database.pool.query<{
    jti: string;
    event_id: string;
    partition: string;
  }>(
    `SELECT substr(stream_id, 7) AS jti, event_id::text, tableoid::regclass::text AS partition
       FROM events WHERE stream_id = ANY($1)`,
    [report.receivedJtis.map((jti) => `token-${jti}`)],
  );
  tokenEvents = new Map(
    rows.map((row) => [row.jti, { eventId: row.event_id, partition: row.partition }]),
  );

  // The archive, as an operator runs it while everything goes on. Exit 1 means "not settled yet"
  // (the projector has not sealed the partition's last events): tried again, each run bounded.
  const started = Date.now();
  archive = { code: -1, stdout: '', tries: 0, ms: 0 };
  while (archive.code !== 0 && Date.now() - started < 120_000) {
    archive.tries += 1;
    archive = await run(
      tsx,
      ['src/cli/archive.ts', `--before=${firstPartition.ends_at.toISOString()}`],
      {
        env: { ...processEnv(), MIGRATE_ON_START: 'true', ARCHIVE_DIR: archiveDir },
        timeout: 60_000,
      },
    ).then(
      (ok) => ({ ...archive, code: 0, stdout: ok.stdout }),
      (error: { code: number | string; signal?: string; stdout: string }) => ({
        ...archive,
        code: error.signal ? `killed after 60 s (${error.signal})` : error.code,
        stdout: error.stdout,
      }),
    );
    if (archive.code !== 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  archive.ms = Date.now() - started;
}, 420_000);

describe('crossing partition boundaries with the API, projector and deliverer running', () => {
  it('answers every issuance 200 (or 429/503 with Retry-After): no 500, no hang', () => {
    console.log(
      `partition boundary: ${report.requests} requests, by status ${JSON.stringify(report.byStatus)}; archive ${archive.tries} run(s), ${archive.ms} ms`,
    );
    expect(report.serverErrors).toEqual([]);
    expect(report.unanswered).toBe(0);
    expect(report.unavailableWithoutRetryAfter).toBe(0);
    expect(Object.keys(report.byStatus).filter((s) => !['200', '429', '503'].includes(s))).toEqual(
      [],
    );
  });

  it('issued tokens in three partitions: each was made ahead of its time', async () => {
    const partitions = new Set([...tokenEvents.values()].map((event) => event.partition));
    expect(partitions.size).toBeGreaterThanOrEqual(3);
    const { rows } = await service.database.pool.query<{ ahead: boolean }>(
      `SELECT max(ends_at) > now() AS ahead FROM event_partitions`,
    );
    expect(rows[0]!.ahead).toBe(true);
  });

  it('lost no acknowledged token: each has its event in the log', () => {
    expect(report.receivedJtis.length).toBeGreaterThan(0);
    const missing = report.receivedJtis.filter((jti) => !tokenEvents.has(jti));
    expect(missing).toEqual([]);
  });

  it('archives the first partition while the deliverer runs, without waiting on it', () => {
    expect(archive.code, archive.stdout).toBe(0);
    const outcomes = archive.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(outcomes).toContainEqual(
      expect.objectContaining({ partition: firstPartition.name, archived: true }),
    );
  });

  it("delivers every acknowledged token's event to the sink", async () => {
    const wanted = new Set([...tokenEvents.values()].map((event) => event.eventId));
    await waitUntil(
      () => webhook.events().filter((event) => wanted.has(event.id)).length,
      (n) => n === wanted.size,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
  });
});
