import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { freePort } from '../src/net/free-port.js';

/** A bench run's own Postgres: a fresh data folder, an embedded server in it, a small pool. */
export interface BenchDatabase {
  /** The run's DATA_DIR (the server's files are in its `postgres` folder). */
  readonly dataDir: string;
  readonly postgres: EmbeddedPostgres;
  readonly pool: pg.Pool;
  /** Ends the pool, stops the server and removes the folder. */
  stop(): Promise<void>;
}

/** Starts a throwaway embedded Postgres for one bench run (`prefix` names its temp folder). */
export async function startBenchDatabase(
  prefix: string,
  /** Extra server settings (`-c name=value`). */
  settings: Readonly<Record<string, string>> = {},
): Promise<BenchDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  const postgres = await startEmbeddedPostgres({
    baseDir: path.join(dataDir, 'postgres'),
    port: await freePort(),
    persistent: false,
    logger: pino({ level: 'warn' }),
    settings,
  });
  const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  return {
    dataDir,
    postgres,
    pool,
    async stop() {
      await pool.end();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await postgres.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the report says of the server: its durability settings and version. */
export async function serverSettings(pool: pg.Pool) {
  const { rows } = await pool.query<{ sc: string; fsync: string; v: string }>(
    `SELECT current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync, version() AS v`,
  );
  return rows[0]!;
}
