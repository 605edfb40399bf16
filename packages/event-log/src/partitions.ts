import { sql } from 'kysely';
import type pg from 'pg';
import type { EventLogTables, LogDatabase } from './table.js';

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
    // Dropping a partition locks the whole log: behind a long reader, give up (and be retried)
    // rather than hold every append up behind this wait.
    await client.query("SET LOCAL lock_timeout = '2s'");
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

/** What one round of partition maintenance did. */
export type PartitionRound =
  { readonly outcome: 'made'; readonly made: number } | { readonly outcome: 'busy' };

/**
 * Creates the log's partitions that are due (none, almost always: one indexed read). Every
 * service process calls it on start and every few seconds, so appends always find a partition
 * even when the others are down. Never waits on another session: when one is making them already
 * (its advisory lock) this round is `busy`, and the function's DDL
 * gives up after its lock_timeout (2 s) with an error (migration 035).
 */
export async function ensurePartitions<DB extends EventLogTables>(
  db: LogDatabase<DB>,
): Promise<PartitionRound> {
  const { rows } = await sql<{ made: number }>`SELECT ensure_event_partitions() AS made`.execute(
    db,
  );
  const made = rows[0]?.made ?? 0;
  return made < 0 ? { outcome: 'busy' } : { outcome: 'made', made };
}

/** Where partition maintenance says what it did (a pino logger fits). */
export interface PartitionLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Runs {@link ensurePartitions} now and every `everyMs`; returns how to stop. One round at a
 * time: a slow round is never joined by the next on another pooled connection.
 */
export function keepPartitionsAhead<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  log: PartitionLog,
  everyMs = 10_000,
): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    ensurePartitions(db)
      .then(
        (round) => {
          if (round.outcome === 'busy')
            log.info(
              { retryInMs: everyMs },
              'partitions of the log: another session is making them; not waiting',
            );
          else if (round.made > 0) log.info({ made: round.made }, 'partitions of the log made');
        },
        (error: unknown) =>
          log.warn({ err: error, retryInMs: everyMs }, 'partitions of the log not ensured'),
      )
      .finally(() => (running = false));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * How far ahead the log's partitions reach, in partition intervals from now (fractional; 0 or
 * less: appends fail), and how far they should (EVENT_PARTITIONS_AHEAD). For /metrics and the
 * alert that fires before the lookahead runs out.
 */
export async function partitionHorizon<DB extends EventLogTables>(
  db: LogDatabase<DB>,
): Promise<{ readonly ahead: number; readonly target: number } | undefined> {
  const { rows } = await sql<{ ahead: number | null; target: number }>`
    SELECT (extract(epoch FROM (SELECT max(ends_at) FROM event_partitions) - now())
            / extract(epoch FROM partition_interval))::float8 AS ahead,
           ahead AS target
      FROM event_partitioning`.execute(db);
  const row = rows[0];
  return row ? { ahead: row.ahead ?? 0, target: row.target } : undefined;
}
