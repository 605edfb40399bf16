/**
 * `npm run verify-export -- --key=<audit public key> <export.ndjson | ->`: checks an audit export
 * offline, with no database. The key is a JWK file or the saved body of GET
 * /v1/audit/checkpoints; without one it refuses to say ok, unless told --no-signature-check, and
 * then its verdict says the signatures were not checked. Format 2 (the Merkle log's, the export's
 * format line says which): sequence numbers must run without gaps and in order from the
 * frontier's size + 1 (or 1), and the events' leaves, appended to the frontier, must make the
 * root of every signed tree head in the export, each signed by the audit key (with --key); a head
 * past the last event means events were cut from the end. Format 1 (exports made before issue 45)
 * is still checked by its hash chain: every event must hash to its link, and every JWS checkpoint
 * must be signed, chained to the one before and match the link it names. Either way the last
 * event must be covered by a head (format 1: a checkpoint), else the tail is unanchored (exit 1
 * naming how many events, unless --allow-unanchored-tail); with --checkpoint-dir every head must
 * be its file there (format 1: its JWS checkpoint file) and no file within the export may be
 * missing from it. With --min-cosignatures=N the newest head must carry N cosignatures of
 * distinct --witness keys (one key given twice is one witness), or, with
 * --allow-unwitnessed-tail, an older one must and the verdict's `witnessed_through` says how far
 * the witnessing reaches. Prints the verdict as JSON; exit 0 when it verifies, 1 when not (naming
 * what and where), 2 on bad usage.
 */
import { readFile } from 'node:fs/promises';
import { checkExport, firstSpaceId } from '../check/export.js';
import { readCheckpointStatement } from '../check/jws-checkpoint.js';
import { readJwsCheckpointFiles, readTreeHeadFiles } from '../head-files.js';
import { EXPORT_FORMAT, exportFormat } from '../export-lines.js';
import { mergeWithArchive } from '../check/archive.js';
import type { EventLeaves } from '../event-leaf.js';
import { auditPublicKeyOf } from '../audit-public-key.js';
import type { NoteVerifier } from '../transparency/signed-note.js';
import { distinctWitnesses, parseCosignerKey } from '../transparency/witness-keys.js';
import { progressOnStderr } from './progress.js';
import { parseCommandLine } from 'token-authority-settings';

const USAGE = `Usage: npm run verify-export -- (--key=<file> | --no-signature-check) [--checkpoint-dir=<dir>]
         [--allow-unanchored-tail] [--archive-dir=<dir>] [--witness=<cosigner vkey> ...]
         [--min-cosignatures=N] [--allow-unwitnessed-tail] [--] <export.ndjson | ->
Verifies an audit export (GET /v1/audit/export) offline; "-" reads it from stdin. --key: the audit
public key as a JWK, or the saved answer of GET /v1/audit/checkpoints (its public_key), kept where
the database's owners cannot change it. Without it nothing is "ok" unless --no-signature-check
says to skip the signatures (the verdict then says they were not checked).
Format 2 (the Merkle log's): the events, from the export's frontier, must make the root of every
signed tree head in the export, each signed by the audit key. Format 1 (made before issue 45) is
still checked by its hash chain and JWS checkpoints, and any tree heads it carries as above.
--checkpoint-dir: the signed head files (AUDIT_CHECKPOINT_DIR, on write-once storage; format 1:
its JWS checkpoint files) to compare the export's heads with. --allow-unanchored-tail: accept
events after the last signed head. --archive-dir: the archive (ARCHIVE_DIR): its files for the
space and the export are checked as one, from the first archived event to the export's last (the
events make every head's root; format 1: one unbroken chain); an edited, missing or extra
archive file fails, named. --witness, --min-cosignatures=N: the newest head must carry
N valid cosignatures of distinct witnesses among these keys (a key given twice counts once; N is
at most the distinct keys). --allow-unwitnessed-tail: an older head so cosigned is enough; the
verdict's witnessed_through (the largest such head) and newest_tree_head say what was witnessed.`;
/**
 * Runs the program on this process's arguments, the leaves recomputed as `leaves` says (the
 * service passes its own, bound to its event catalog's redaction; an export's events are already
 * redacted, so the entry is the event as exported). Exits as the usage says.
 */
export async function runVerifyExport(
  leaves: EventLeaves,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const { values, positionals } = parseCommandLine(
    USAGE,
    {
      key: { type: 'string' },
      'no-signature-check': { type: 'boolean', default: false },
      'checkpoint-dir': { type: 'string' },
      'allow-unanchored-tail': { type: 'boolean', default: false },
      'archive-dir': { type: 'string' },
      witness: { type: 'string', multiple: true },
      'min-cosignatures': { type: 'string', default: '0' },
      'allow-unwitnessed-tail': { type: 'boolean', default: false },
    },
    argv,
  );
  const minCosignatures = Number(values['min-cosignatures']);
  let witnesses: NoteVerifier[] = [];
  try {
    witnesses = distinctWitnesses((values.witness ?? []).map(parseCosignerKey));
    if (
      !Number.isInteger(minCosignatures) ||
      minCosignatures < 0 ||
      minCosignatures > witnesses.length
    ) {
      throw new Error(
        `--min-cosignatures: a whole number, at most the distinct --witness keys given (${witnesses.length})`,
      );
    }
  } catch (error) {
    console.error(`verify-export: ${(error as Error).message}`);
    process.exit(2);
  }
  const file = positionals[0];
  if (!file) {
    console.error(USAGE);
    process.exit(2);
  }
  const skipSignatures = values['no-signature-check'];
  if (values.key && skipSignatures) {
    console.error('--key and --no-signature-check: give one of them');
    process.exit(2);
  }
  if (!values.key && !skipSignatures) {
    // What was not checked cannot be called ok: a made-up export would pass.
    console.log(
      JSON.stringify({
        ok: false,
        reason: 'no_key',
        detail:
          'no --key: the signed heads could be signed by anyone; give the audit public key (GET /v1/audit/checkpoints), or --no-signature-check to check the events against the heads alone (format 1: against its chain)',
      }),
    );
    process.exit(1);
  }
  const publicKey = values.key ? await auditPublicKey(values.key) : undefined;
  if (!publicKey) {
    process.stderr.write(
      '--no-signature-check: signed heads (format 1: checkpoints) are read but their signatures are not checked\n',
    );
  }
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  const archiveDir = values['archive-dir'];
  let lines = text.split('\n');
  let sources: readonly string[] | undefined;
  if (archiveDir) {
    // The archived part of the space's events and the live export, as one export from the first.
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
  // The format line (or its absence: format 1, made before issue 45) says which checks apply.
  const format = exportFormat(lines);
  if (format > EXPORT_FORMAT) {
    console.log(
      JSON.stringify({
        ok: false,
        reason: 'malformed_line',
        line: 1,
        detail: `export format ${format} is newer than this verify-export (${EXPORT_FORMAT})`,
      }),
    );
    process.exit(1);
  }
  const { verdict, heads } = checkExport(lines, {
    leaves,
    publicKey,
    allowUnanchoredTail: values['allow-unanchored-tail'],
    witnesses,
    minCosignatures,
    allowUnwitnessedTail: values['allow-unwitnessed-tail'],
    onLine: (line) => progress.update(line),
    ...(checkpointDir && format >= 2
      ? { headFiles: await readTreeHeadFiles(checkpointDir, spaceId ?? '') }
      : {}),
    ...(checkpointDir && format < 2
      ? { checkpointFiles: await readJwsCheckpointFiles(checkpointDir, spaceId ?? '') }
      : {}),
  });
  progress.finish(verdict.ok ? lines.length : verdict.line);
  // With an archive, a failure names the file its line came from.
  const failed = !verdict.ok ? verdict : heads?.ok === false ? heads : undefined;
  const source = failed && sources && failed.line > 0 ? sources[failed.line - 1] : undefined;
  const said = {
    ...verdict,
    ...(heads ?? {}),
    ...(source ? { file: source } : {}),
    ...(skipSignatures ? { signatures: 'not checked (--no-signature-check)' } : {}),
  };
  console.log(JSON.stringify(said));
  process.exitCode = verdict.ok && heads?.ok !== false ? 0 : 1;
}

/** The audit public key from a JWK file or a saved GET /v1/audit/checkpoints answer. */
async function auditPublicKey(file: string) {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { public_key?: unknown };
    return auditPublicKeyOf((parsed.public_key ?? parsed) as Record<string, unknown>);
  } catch {
    console.error(
      '--key: expected a file holding the audit public JWK, or the answer of GET /v1/audit/checkpoints',
    );
    process.exit(2);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
