import type pg from 'pg';
import { EVENT_LOG_LOCKS, EVENT_LOG_MIGRATIONS, type Migration } from './schema.js';

/** A list of migrations and where they are recorded: the log's, or a user's own. */
export interface MigrationSet {
  readonly migrations: readonly Migration[];
  /** The table recording each applied migration by name (created when missing). */
  readonly record: string;
  /** The advisory-lock key under which processes starting together apply each once. */
  readonly lockKey: number;
  /** Roles the record is readable by when it is created ('PUBLIC': every role). */
  readonly readableBy?: string;
}

/**
 * Applies the migrations of `set` not yet recorded, in order, in one transaction under its lock;
 * returns the names applied (a migration adopted, its work found done, counts as applied). The
 * connection must own the schema (functions it creates run as their owner).
 */
export async function applyMigrations(pool: pg.Pool, set: MigrationSet): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Migrations (and waiting for another process's) may outlast the bounds set for requests.
    await client.query('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [set.lockKey]);
    if (!(await standing(client, [set.record]))) {
      await client.query(`CREATE TABLE ${set.record} (
        name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      if (set.readableBy) await client.query(`GRANT SELECT ON ${set.record} TO ${set.readableBy}`);
    }
    const done = new Set(
      (await client.query<{ name: string }>(`SELECT name FROM ${set.record}`)).rows.map(
        (row) => row.name,
      ),
    );
    const applied: string[] = [];
    for (const migration of set.migrations) {
      if (done.has(migration.name)) continue;
      if (!(await standing(client, migration.adoptsWhereStand))) await client.query(migration.sql);
      await client.query(`INSERT INTO ${set.record} (name) VALUES ($1)`, [migration.name]);
      applied.push(migration.name);
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

/** Whether every migration of `set` is recorded as applied. */
export async function migrationsApplied(
  pool: pg.Pool,
  set: {
    readonly record: string;
    /** Their names are all it reads. */
    readonly migrations: readonly Pick<Migration, 'name'>[];
  },
): Promise<boolean> {
  const { rows: found } = await pool.query<{ exists: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS exists',
    [set.record],
  );
  if (!found[0]?.exists) return false;
  const { rows } = await pool.query<{ applied: number }>(
    `SELECT count(*)::int AS applied FROM ${set.record} WHERE name = ANY($1)`,
    [set.migrations.map((migration) => migration.name)],
  );
  return rows[0]?.applied === set.migrations.length;
}

/** Whether every relation named stands (none named: no). */
async function standing(
  client: pg.PoolClient,
  relations: readonly string[] = [],
): Promise<boolean> {
  if (relations.length === 0) return false;
  const { rows } = await client.query<{ standing: number }>(
    'SELECT count(to_regclass(name))::int AS standing FROM unnest($1::text[]) AS name',
    [relations],
  );
  return rows[0]?.standing === relations.length;
}

/** The log's own: recorded in event_log_migrations, readable by every role (names and times). */
const EVENT_LOG: MigrationSet = {
  migrations: EVENT_LOG_MIGRATIONS,
  record: 'event_log_migrations',
  lockKey: EVENT_LOG_LOCKS.migrations,
  readableBy: 'PUBLIC',
};

/** Applies the log's migrations not yet recorded; returns the names applied. */
export const migrateEventLog = (pool: pg.Pool): Promise<string[]> =>
  applyMigrations(pool, EVENT_LOG);

/** Whether every migration of the log is recorded as applied (a readiness check). */
export const eventLogMigrated = (pool: pg.Pool): Promise<boolean> =>
  migrationsApplied(pool, EVENT_LOG);
