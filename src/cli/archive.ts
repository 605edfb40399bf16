/**
 * `npm run archive -- --before=<ISO date> [--dir=<dir>]`: archives every whole partition of the log
 * that ends at or before the date into ARCHIVE_DIR (or --dir) and drops it: files first, verified,
 * then an events-archived event, then the drop (src/audit-trail/archive/archive.ts). Runs as the owner
 * (MIGRATION_DATABASE_URL, or the embedded Postgres). Prints one JSON line per partition; exit 0
 * when every due partition was archived, 1 when one was not ready (it says why), 2 on bad usage.
 */
import path from 'node:path';
import { archivePartitions } from '../audit-trail/archive/archive.js';
import { recordArchive } from '../commands/archive/record.js';
import { operatorActor, operatorDatabase } from './operator.js';
import { parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';

const USAGE = `Usage: npm run archive -- --before=<ISO date> [--dir=<archive folder>]
Moves every whole partition of the event log ending at or before the date into gzipped NDJSON
files (ARCHIVE_DIR, or --dir), verified, recorded as an events-archived event, then dropped.`;
const { values } = parseCommandLine(USAGE, { before: { type: 'string' }, dir: { type: 'string' } });
const before = values.before ? new Date(values.before) : undefined;
if (!before || Number.isNaN(before.getTime())) {
  usageExit(`--before must be a date, such as 2026-01-01T00:00:00Z\n\n${USAGE}`);
}
const config = configOrExit('worker');
const dir = values.dir ?? config.ARCHIVE_DIR;
if (!dir) usageExit(`no archive folder: set ARCHIVE_DIR or pass --dir\n\n${USAGE}`);
const database = await operatorDatabase(config, 'archive', 'archive', {
  poolSize: 2,
  role: 'owner',
});
const outcomes = await archivePartitions(database.handle.db, {
  before,
  dir: path.resolve(dir),
  ...operatorActor(),
  record: recordArchive,
});
for (const outcome of outcomes) console.log(JSON.stringify(outcome));
if (outcomes.length === 0)
  console.log(JSON.stringify({ archived: 0, before: before.toISOString() }));
await database.close();
process.exitCode = outcomes.every((outcome) => outcome.archived) ? 0 : 1;
