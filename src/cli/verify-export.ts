/**
 * `npm run verify-export -- [--key=<audit public key JWK file>] <export.ndjson | ->`: checks an
 * audit export offline, with no database. Every event must hash to its link in the space's chain,
 * sequence numbers must run without gaps and in order, and with --key every checkpoint must be
 * signed by the audit key, chained to the one before, and match the exported link it names (a
 * checkpoint past the last event means events were cut from the end). The last event must be
 * covered by a checkpoint (else the tail is unanchored: exit 1 naming how many events, unless
 * --allow-unanchored-tail), and with --checkpoint-dir every checkpoint must be its file there and
 * no file within the export may be missing from it. Prints the verdict as JSON; exit 0 when it
 * verifies, 1 when not (naming what and where), 2 on bad usage.
 */
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { verifyExportLines } from '../audit-trail/verify-export.js';
import { readCheckpointStatement, verifyCheckpoint } from '../audit-trail/audit-key.js';
import { readCheckpointFiles } from '../audit-trail/checkpoint-files.js';
import { mergeWithArchive } from '../audit-trail/verify-archive.js';
import { progressOnStderr } from './progress.js';
import { parseCommandLine } from './args.js';

const USAGE = `Usage: npm run verify-export -- [--key=<audit-public-key.jwk>] [--checkpoint-dir=<dir>]
         [--allow-unanchored-tail] [--archive-dir=<dir>] [--] <export.ndjson | ->
Verifies an audit export (GET /v1/audit/export) offline; "-" reads it from stdin. The key is the
public_key of GET /v1/audit/checkpoints, kept where the database's owners cannot change it.
--checkpoint-dir: the checkpoint files (AUDIT_CHECKPOINT_DIR, on write-once storage) to compare
the export's checkpoints with. --allow-unanchored-tail: accept events after the last checkpoint.
--archive-dir: the archive (ARCHIVE_DIR): its files for the space and the export must make one
unbroken chain from the first archived event to the export's last; an edited, missing or extra
archive file fails, named.`;
const { values, positionals } = parseCommandLine(USAGE, {
  key: { type: 'string' },
  'checkpoint-dir': { type: 'string' },
  'allow-unanchored-tail': { type: 'boolean', default: false },
  'archive-dir': { type: 'string' },
});
const file = positionals[0];
if (!file) {
  console.error(USAGE);
  process.exit(2);
}
const publicKey = values.key
  ? createPublicKey({ key: JSON.parse(await readFile(values.key, 'utf8')) as never, format: 'jwk' })
  : undefined;
if (!publicKey) {
  process.stderr.write('no --key: checkpoints are read but their signatures are not checked\n');
}
const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
const archiveDir = values['archive-dir'];
let lines = text.split('\n');
let sources: readonly string[] | undefined;
if (archiveDir) {
  // The archived part of the chain and the live export, as one chain from the first event.
  const merged = await mergeWithArchive(
    archiveDir,
    lines,
    (jws) => readCheckpointStatement(jws)?.checkpoint_number,
  );
  if ('reason' in merged) {
    console.log(JSON.stringify({ ok: false, ...merged }));
    process.exit(1);
  }
  lines = [...merged.lines];
  sources = merged.sources;
}
const progress = progressOnStderr('verify-export', { total: lines.length, unit: 'lines' });
const spaceId = firstSpaceId(lines);
const checkpointDir = values['checkpoint-dir'];
const verdict = verifyExportLines(
  lines,
  publicKey ? (jws) => verifyCheckpoint(publicKey, jws) : undefined,
  readCheckpointStatement,
  (line) => progress.update(line),
  {
    allowUnanchoredTail: values['allow-unanchored-tail'],
    ...(checkpointDir
      ? {
          checkpointFiles: await readCheckpointFiles(checkpointDir, spaceId ?? ''),
        }
      : {}),
  },
);
progress.finish(verdict.ok ? lines.length : verdict.line);
// With an archive, a failure names the file its line came from.
const source = !verdict.ok && sources && verdict.line > 0 ? sources[verdict.line - 1] : undefined;
console.log(JSON.stringify(source ? { ...verdict, file: source } : verdict));
process.exitCode = verdict.ok ? 0 : 1;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The space of the export's first event (its checkpoint files are in that space's folder). */
function firstSpaceId(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    try {
      const parsed = JSON.parse(line) as { type?: string; event?: { space_id?: unknown } };
      if (parsed.type === 'event' && typeof parsed.event?.space_id === 'string') {
        return parsed.event.space_id;
      }
    } catch {
      // Not JSON: the verifier names the line.
    }
  }
  return undefined;
}
