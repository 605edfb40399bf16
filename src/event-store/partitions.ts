import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/schema.js';

/**
 * Writes the partitioning settings (as the owner, with the migrations) and creates whatever
 * partitions they call for. An interval Postgres refuses, or one under a minute, is an error here,
 * before the service starts.
 */
export async function configurePartitioning(
  owner: pg.Pool,
  settings: { readonly interval: string; readonly ahead: number },
): Promise<void> {
  await owner.query(
    `UPDATE event_partitioning SET partition_interval = $1::interval, ahead = $2
      WHERE partition_interval IS DISTINCT FROM $1::interval OR ahead IS DISTINCT FROM $2`,
    [settings.interval, settings.ahead],
  );
  await owner.query('SELECT ensure_event_partitions()');
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
