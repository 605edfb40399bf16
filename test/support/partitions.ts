import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { tokenStreamId } from '../../src/domain/streams.js';
import { insertEvents, streamRows } from '#event-log/insert-events.js';

/** The event partition holding "now" (a test configures partitions of a minute). */
export const currentPartition = async (pool: pg.Pool) =>
  (
    await pool.query<{ name: string; starts_at: Date; ends_at: Date }>(
      `SELECT partition_name AS name, starts_at, ends_at FROM event_partitions
        WHERE starts_at <= now() AND now() < ends_at`,
    )
  ).rows[0]!;

/** Waits until the next partition begins (and 200 ms more). */
export async function untilNextPartition(pool: pg.Pool): Promise<void> {
  const { ends_at: end } = await currentPartition(pool);
  await new Promise((resolve) => setTimeout(resolve, end.getTime() - Date.now() + 200));
}

/**
 * `count` token issuances in `spaceId`, each a copy of one the service recorded (so a log grows
 * by tiles in seconds, not by thousands of requests); their jtis.
 */
export async function recordIssuances(
  db: Kysely<Database>,
  pool: pg.Pool,
  spaceId: string,
  count: number,
): Promise<string[]> {
  const { rows } = await pool.query<{ data: unknown; metadata: Record<string, unknown> }>(
    `SELECT data, metadata FROM events WHERE event_type = 'private-token-issued' LIMIT 1`,
  );
  const jtis = Array.from({ length: count }, () => randomUUID());
  await insertEvents(
    db,
    jtis.flatMap((jti) =>
      streamRows(
        spaceId,
        tokenStreamId(jti),
        [{ eventId: randomUUID(), type: 'private-token-issued', ...rows[0]! }],
        0,
      ),
    ),
  );
  return jtis;
}

/**
 * `npm run archive -- --before=<before>` as its own process (the owner's URL, one-minute
 * partitions): its exit code, its output, and its stdout's lines as JSON.
 */
export async function runArchive(
  before: Date,
  where: { readonly url: string; readonly dataDir: string; readonly archiveDir: string },
): Promise<{
  code: number;
  stdout: string;
  stderr: string;
  lines: Array<Record<string, unknown>>;
}> {
  const env = {
    ...process.env,
    MIGRATION_DATABASE_URL: where.url,
    DATABASE_URL: where.url,
    DATA_DIR: where.dataDir,
    ARCHIVE_DIR: where.archiveDir,
    EVENT_PARTITION_INTERVAL: '1 minute',
    LOG_LEVEL: 'silent',
  };
  const tsx = path.resolve('node_modules/.bin/tsx');
  const args = ['src/cli/archive.ts', `--before=${before.toISOString()}`];
  const done = await promisify(execFile)(tsx, args, { env }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const lines = done.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code: done.code, stdout: done.stdout, stderr: done.stderr, lines };
}
