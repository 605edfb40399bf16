import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/schema.js';

/**
 * Writes the partitioning settings (as the owner, with the migrations) and creates whatever
 * partitions they call for. When the interval changes, partitions made ahead that are still empty
 * are dropped and made again with the new one (the current partition, if it holds events, keeps
 * its end). An interval Postgres refuses, or one under a minute, is an error here, before the
 * service starts.
 */
export async function configurePartitioning(
  owner: pg.Pool,
  settings: { readonly interval: string; readonly ahead: number },
): Promise<void> {
  const client = await owner.connect();
  try {
    await client.query('BEGIN');
    const { rowCount } = await client.query(
      `UPDATE event_partitioning SET partition_interval = $1::interval, ahead = $2
        WHERE partition_interval IS DISTINCT FROM $1::interval OR ahead IS DISTINCT FROM $2`,
      [settings.interval, settings.ahead],
    );
    if (rowCount) {
      const { rows } = await client.query<{ partition_name: string }>(
        `SELECT partition_name FROM event_partitions WHERE ends_at > now() ORDER BY starts_at`,
      );
      for (const { partition_name: name } of rows) {
        const table = client.escapeIdentifier(name);
        const { rows: held } = await client.query(`SELECT 1 FROM ${table} LIMIT 1`);
        if (held.length > 0) continue;
        await client.query(`DROP TABLE ${table}`);
        await client.query('DELETE FROM event_partitions WHERE partition_name = $1', [name]);
      }
    }
    await client.query('SELECT ensure_event_partitions()');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Creates the log's partitions that are due (none, almost always: one indexed read). Every
 * service process calls it on start and every few seconds, so appends always find a partition
 * even when the others are down.
 */
export async function ensurePartitions(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ made: number }>`SELECT ensure_event_partitions() AS made`.execute(
    db,
  );
  return rows[0]?.made ?? 0;
}

/** Runs {@link ensurePartitions} now and every `everyMs`; returns how to stop. */
export function keepPartitionsAhead(
  db: Kysely<Database>,
  onError: (error: unknown) => void,
  everyMs = 10_000,
): () => void {
  const run = () => void ensurePartitions(db).catch(onError);
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
