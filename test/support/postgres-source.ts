import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/reliability/harness.js';

/** The one Postgres a test run uses, and which of the three sources it came from. */
export interface TestPostgres {
  readonly source: 'testcontainers' | 'DATABASE_URL' | 'embedded';
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/**
 * testcontainers when a container runtime answers, else DATABASE_URL, else the embedded Postgres
 * (README, "Tests"). Detection costs well under a second when there is no runtime.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const runtime = await getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  if (runtime) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:17-alpine').start();
    return {
      source: 'testcontainers',
      adminUrl: container.getConnectionUri(),
      stop: async () => void (await container.stop()),
    };
  }
  if (process.env.DATABASE_URL) {
    return { source: 'DATABASE_URL', adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  }
  const embedded = await startEmbeddedPostgres({
    baseDir: await mkdtemp(path.join(tmpdir(), 'token-authority-test-')),
    port: await freePort(),
    persistent: false,
    logger: pino({ level: 'warn' }),
  });
  return { source: 'embedded', adminUrl: embedded.url, stop: () => embedded.stop() };
}

/** A port that is free right now; embedded Postgres wants one below 32768. */
export { freePort as freePortBelow32768 } from '../../src/reliability/harness.js';
