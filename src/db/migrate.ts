import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventLogMigrated, migrateEventLog } from '#event-log/migrate.js';
import { ADVISORY_LOCK } from './advisory-locks.js';

/** migrations/ at the repository root. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/**
 * Applies the service's migrations, then the event log's own (packages/event-log: its tables, which
 * the service's history built before the package held them, so they apply over it unchanged);
 * returns the names applied.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const applied = await migrateFiles(pool);
  return [...applied, ...(await migrateEventLog(pool)).map((name) => `event-log/${name}`)];
}

/** Applies each unrecorded migrations/NNN_name.sql in order, each with its record; returns names. */
export async function migrateFiles(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('BEGIN');
    // Migrations (and waiting for another process's) may outlast the bounds set for requests.
    await client.query(`SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0`);
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK.migrations]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map(
        (row) => row.name,
      ),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query(await readFile(path.join(dir, file), 'utf8'));
      await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** True when every migration, the service's and the log's, has been applied (the health check). */
export async function isMigrated(pool: pg.Pool): Promise<boolean> {
  return (await filesMigrated(pool)) && (await eventLogMigrated(pool));
}

async function filesMigrated(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<boolean> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql'));
  const table = await pool.query<{ exists: boolean }>(
    `SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`,
  );
  if (!table.rows[0]?.exists) return false;
  const result = await pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM schema_migrations WHERE name = ANY($1)`,
    [files],
  );
  return result.rows[0]?.count === files.length;
}
