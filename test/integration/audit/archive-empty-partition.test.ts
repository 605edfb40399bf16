import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifests } from '#audit-log/archive-folder.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { runArchive } from '../../support/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

/**
 * Issue 40 (13), found running the archive drill: with one-minute partitions, a minute in which
 * nothing happened is a partition with no events, and `npm run archive` failed on it (no folder
 * for its manifest, then an empty VALUES list). It is archived like any other.
 */
let database: TestDatabase;
let dir: string;
let archiveDir: string;
let empty: { name: string; ends_at: Date };
/** Partitions that ended before it: the history partition, once its month is over. */
let older: string[];
let result: Awaited<ReturnType<typeof runArchive>>;

beforeAll(async () => {
  database = await createTestDatabase(4);
  await configurePartitioning(database.pool, { interval: '1 minute', ahead: 3 });
  dir = await mkdtemp(path.join(tmpdir(), 'archive-empty-'));
  archiveDir = path.join(dir, 'archive');
  // The partition of this minute: no service runs, so nothing is recorded in it.
  empty = (
    await database.pool.query<{ name: string; ends_at: Date }>(
      `SELECT partition_name AS name, ends_at FROM event_partitions
        WHERE starts_at <= now() AND now() < ends_at`,
    )
  ).rows[0]!;
  // The template was migrated with month partitions: across a month's end, the history
  // partition has ended too, holds nothing, and is archived by the same run, before this one.
  older = (
    await database.pool.query<{ name: string }>(
      `SELECT partition_name AS name FROM event_partitions WHERE ends_at <= now() ORDER BY ends_at`,
    )
  ).rows.map((row) => row.name);
  await new Promise((resolve) => setTimeout(resolve, empty.ends_at.getTime() - Date.now() + 500));
  result = await runArchive(empty.ends_at, { url: database.url, dataDir: dir, archiveDir });
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('archiving a partition that holds no events', () => {
  it('archives it like any other: a manifest with no files, an events-archived event, the partition dropped', async () => {
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.lines).toEqual(
      [...older, empty.name].map((partition) =>
        expect.objectContaining({ partition, archived: true, events: 0, files: [] }),
      ),
    );

    const manifest = JSON.parse(
      await readFile(path.join(archiveDir, empty.name, 'manifest.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({ partition: empty.name, events: 0, files: [] });
    // The folder reads as an archive: that manifest (and the older ones'), no stray file.
    const folder = await readManifests(archiveDir);
    expect(folder.extra).toEqual([]);
    expect(folder.manifests.map((one) => (one as { partition: string }).partition).sort()).toEqual(
      [...older, empty.name].sort(),
    );
    expect(folder.manifests).toContainEqual(manifest);

    const recorded = await database.pool.query<{ data: { partition: string; events: number } }>(
      `SELECT data FROM events WHERE event_type = 'events-archived'`,
    );
    expect(recorded.rows.map((row) => row.data)).toEqual(
      [...older, empty.name].map((partition) =>
        expect.objectContaining({ partition, events: 0, files: [] }),
      ),
    );
    const { rows } = await database.pool.query<{ present: string | null; listed: number }>(
      `SELECT to_regclass($1)::text AS present,
              (SELECT count(*)::int FROM event_partitions WHERE partition_name = $1) AS listed`,
      [empty.name],
    );
    expect(rows[0]).toEqual({ present: null, listed: 0 });
    // No range of any space was in it, so the audit API names none.
    const ranges = await database.pool.query(`SELECT 1 FROM archived_ranges`);
    expect(ranges.rowCount).toBe(0);
  });
});
