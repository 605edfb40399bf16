import type pg from 'pg';
import { EVENT_LOG_LOCKS, EVENT_LOG_MIGRATIONS } from './schema.js';

/** Where each applied migration of the log is recorded, by name. */
const RECORD = 'event_log_migrations';

/**
 * Applies the log's migrations not yet recorded (in one transaction, under the log's migration
 * lock, so processes starting together apply each once); returns the names applied. The
 * connection must own the schema (the functions it creates run as their owner).
 */
export async function migrateEventLog(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // DDL on a busy log may wait for its table locks longer than a request would.
    await client.query('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [EVENT_LOG_LOCKS.migrations]);
    const { rows: found } = await client.query<{ exists: boolean }>(
      `SELECT to_regclass('${RECORD}') IS NOT NULL AS exists`,
    );
    if (!found[0]?.exists) {
      await client.query(`CREATE TABLE ${RECORD} (
        name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      // Names and times only: every role may ask whether the log is migrated (a readiness check).
      await client.query(`GRANT SELECT ON ${RECORD} TO PUBLIC`);
    }
    const done = new Set(
      (await client.query<{ name: string }>(`SELECT name FROM ${RECORD}`)).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const migration of EVENT_LOG_MIGRATIONS) {
      if (done.has(migration.name)) continue;
      if (!(await standing(client, migration.adoptsWhereStand))) await client.query(migration.sql);
      await client.query(`INSERT INTO ${RECORD} (name) VALUES ($1)`, [migration.name]);
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

/** Whether every migration of the log is recorded as applied. */
export async function eventLogMigrated(pool: pg.Pool): Promise<boolean> {
  const { rows: found } = await pool.query<{ exists: boolean }>(
    `SELECT to_regclass('${RECORD}') IS NOT NULL AS exists`,
  );
  if (!found[0]?.exists) return false;
  const { rows } = await pool.query<{ applied: number }>(
    `SELECT count(*)::int AS applied FROM ${RECORD} WHERE name = ANY($1)`,
    [EVENT_LOG_MIGRATIONS.map((migration) => migration.name)],
  );
  return rows[0]?.applied === EVENT_LOG_MIGRATIONS.length;
}
