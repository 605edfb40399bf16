/**
 * `npm run verify-proof -- <answer.json> --key=<verifier key> [--old=<checkpoint file>]
 *   [--witness=<cosigner vkey> …] [--min-cosignatures=N]`
 * Checks, offline, a saved answer of GET /v1/audit/proof/inclusion (the event's entry hashes to
 * its leaf, the leaf is in the tree the signed checkpoint names) or of /v1/audit/proof/consistency
 * (with --old, the earlier signed checkpoint, and the newer one in the answer's `checkpoint` or
 * --new). --key is the log's note verifier key, obtained independently of the answer. With
 * --min-cosignatures=N each checkpoint must carry N cosignatures of distinct --witness keys (a key
 * given twice is one witness; N is at most the distinct keys). Prints a
 * verdict as JSON; exit 0 when it holds, 1 when it does not, 2 on bad usage.
 */
import { readFile } from 'node:fs/promises';
import { parseCheckpointText, type Checkpoint } from '#audit-log/transparency/checkpoint.js';
import { leafHash, verifyConsistency, verifyInclusion } from '#audit-log/transparency/merkle.js';
import {
  COSIGNATURE_ED25519,
  openNote,
  parseVerifierKey,
  type NoteVerifier,
} from '#audit-log/transparency/signed-note.js';
import { cosigners, distinctWitnesses } from '#audit-log/transparency/witness-keys.js';
import { parseCommandLine } from './args.js';

const USAGE = `Usage: npm run verify-proof -- <answer.json> --key=<log verifier key> [--old=<checkpoint>] [--new=<checkpoint>] [--witness=<cosigner vkey> ...] [--min-cosignatures=N]`;
const { values, positionals } = parseCommandLine(USAGE, {
  key: { type: 'string' },
  old: { type: 'string' },
  new: { type: 'string' },
  witness: { type: 'string', multiple: true },
  'min-cosignatures': { type: 'string', default: '0' },
});
const minimum = Number(values['min-cosignatures']);
if (positionals.length !== 1 || !values.key || !Number.isInteger(minimum) || minimum < 0) {
  console.error(USAGE);
  process.exit(2);
}

function verdict(ok: boolean, details: Record<string, unknown>): never {
  console.log(JSON.stringify({ ok, ...details }));
  process.exit(ok ? 0 : 1);
}

let logKey: NoteVerifier;
let witnesses: NoteVerifier[];
let answer: Record<string, unknown>;
try {
  logKey = parseVerifierKey(values.key.trim());
  witnesses = distinctWitnesses(
    (values.witness ?? []).map((text) => parseVerifierKey(text.trim())),
  );
  if (witnesses.some((witness) => witness.type !== COSIGNATURE_ED25519)) {
    throw new Error('--witness takes a cosigner key (type 0x04)');
  }
  if (minimum > witnesses.length) {
    throw new Error(
      `--min-cosignatures: at most the distinct --witness keys given (${witnesses.length})`,
    );
  }
  answer = JSON.parse(await readFile(positionals[0]!, 'utf8')) as Record<string, unknown>;
} catch (error) {
  console.error(`verify-proof: ${(error as Error).message}`);
  process.exit(2);
}

/** A checkpoint signed by the log key, with the cosignatures asked for; else the reason not. */
function signedCheckpoint(note: unknown, which: string): Checkpoint {
  if (typeof note !== 'string') verdict(false, { reason: `no ${which} checkpoint` });
  const text = openNote(note, logKey);
  if (text === undefined)
    verdict(false, { reason: `the ${which} checkpoint is not signed by --key` });
  const cosigned = cosigners(note, witnesses);
  if (cosigned.length < minimum) {
    verdict(false, {
      reason: `the ${which} checkpoint has ${cosigned.length} of ${minimum} cosignatures`,
    });
  }
  const checkpoint = parseCheckpointText(text);
  if (checkpoint.origin !== logKey.name) {
    verdict(false, {
      reason: `the ${which} checkpoint is of ${checkpoint.origin}, not ${logKey.name}`,
    });
  }
  return checkpoint;
}

const hashes = (value: unknown) =>
  Array.isArray(value) ? value.map((hash) => Buffer.from(String(hash), 'base64')) : [];

if (typeof answer.entry === 'string') {
  const head = signedCheckpoint(answer.checkpoint, 'signed');
  const leaf = leafHash(Buffer.from(answer.entry, 'utf8'));
  const index = Number(answer.leaf_index);
  if (head.size !== Number(answer.tree_size)) {
    verdict(false, {
      reason: `the checkpoint is of ${head.size} events, the proof of ${String(answer.tree_size)}`,
    });
  }
  const ok = verifyInclusion(leaf, index, head.size, hashes(answer.proof), head.root);
  verdict(ok, {
    proof: 'inclusion',
    origin: head.origin,
    tree_size: head.size,
    leaf_index: index,
    ...(ok
      ? { entry: JSON.parse(answer.entry) as unknown }
      : { reason: 'the entry is not in the tree the checkpoint signs' }),
  });
}
const oldFile = values.old && (await readFile(values.old, 'utf8'));
const newNote = values.new ? await readFile(values.new, 'utf8') : answer.checkpoint;
const older = signedCheckpoint(oldFile, 'old');
const newer = signedCheckpoint(newNote, 'new');
if (older.size !== Number(answer.from) || newer.size !== Number(answer.to)) {
  verdict(false, {
    reason: `the proof is from ${String(answer.from)} to ${String(answer.to)}, the checkpoints of ${older.size} and ${newer.size}`,
  });
}
const ok = verifyConsistency(older.size, newer.size, hashes(answer.proof), older.root, newer.root);
verdict(ok, {
  proof: 'consistency',
  origin: newer.origin,
  from: older.size,
  to: newer.size,
  ...(ok ? {} : { reason: 'the newer tree does not extend the older one: history was changed' }),
});
