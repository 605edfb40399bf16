import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import {
  applyMigrations,
  eventLogMigrated,
  migrateEventLog,
  migrationsApplied,
} from '#event-log/migrate.js';
import { ADVISORY_LOCK } from './advisory-locks.js';

/** migrations/ at the repository root. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/**
 * Applies the service's migrations, then the event log's own (packages/event-log: its tables, which
 * the service's history built before the package held them, so there they are recorded, not run);
 * returns the names applied.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const applied = await migrateFiles(pool);
  return [...applied, ...(await migrateEventLog(pool)).map((name) => `event-log/${name}`)];
}

/** The service's migration files, migrations/NNN_name.sql, in name order. */
const migrationFiles = async (dir: string) =>
  (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();

/** Where the service's migrations are recorded, and the lock they are applied under. */
const SERVICE = { record: 'schema_migrations', lockKey: ADVISORY_LOCK.migrations } as const;

/** Applies each unrecorded migrations/NNN_name.sql in order, each with its record; returns names. */
export async function migrateFiles(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await Promise.all(
    (await migrationFiles(dir)).map(async (name) => ({
      name,
      sql: await readFile(path.join(dir, name), 'utf8'),
    })),
  );
  return applyMigrations(pool, { ...SERVICE, migrations });
}

/** True when every migration, the service's and the log's, has been applied (the health check). */
export async function isMigrated(pool: pg.Pool): Promise<boolean> {
  const names = await migrationFiles(MIGRATIONS_DIR);
  return (
    (await migrationsApplied(pool, { ...SERVICE, migrations: names.map((name) => ({ name })) })) &&
    (await eventLogMigrated(pool))
  );
}
