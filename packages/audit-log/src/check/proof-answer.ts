import { parseCheckpointText, type Checkpoint } from '../transparency/checkpoint.js';
import { leafHash, verifyConsistency, verifyInclusion } from '../transparency/merkle.js';
import { openNote, type NoteVerifier } from '../transparency/signed-note.js';
import { cosigners } from '../transparency/witness-keys.js';

/** The verdict on a saved proof answer: `ok`, and what was proven or why not. */
export type ProofVerdict = { readonly ok: boolean } & Readonly<Record<string, unknown>>;

/** Who must have signed: the log's key, and `minimum` cosignatures of distinct `witnesses`. */
export interface ProofSigners {
  readonly logKey: NoteVerifier;
  readonly witnesses: readonly NoteVerifier[];
  readonly minimum: number;
}

/** Thrown with the verdict when a checkpoint fails: the first failure is the answer. */
class Refused {
  constructor(readonly verdict: ProofVerdict) {}
}
const refuse = (details: Record<string, unknown>): never => {
  throw new Refused({ ok: false, ...details });
};

/** A checkpoint signed by the log key, with the cosignatures asked for; else the reason not. */
function signedCheckpoint(note: unknown, which: string, signers: ProofSigners): Checkpoint {
  if (typeof note !== 'string') return refuse({ reason: `no ${which} checkpoint` });
  const text = openNote(note, signers.logKey);
  if (text === undefined) refuse({ reason: `the ${which} checkpoint is not signed by --key` });
  const cosigned = cosigners(note, signers.witnesses);
  if (cosigned.length < signers.minimum) {
    refuse({
      reason: `the ${which} checkpoint has ${cosigned.length} of ${signers.minimum} cosignatures`,
    });
  }
  const checkpoint = parseCheckpointText(text!);
  if (checkpoint.origin !== signers.logKey.name) {
    refuse({
      reason: `the ${which} checkpoint is of ${checkpoint.origin}, not ${signers.logKey.name}`,
    });
  }
  return checkpoint;
}

const hashes = (value: unknown) =>
  Array.isArray(value) ? value.map((hash) => Buffer.from(String(hash), 'base64')) : [];

/** Whether `answer` is an inclusion proof (it carries the event's entry). */
export const isInclusionAnswer = (answer: Readonly<Record<string, unknown>>): boolean =>
  typeof answer.entry === 'string';

/**
 * Checks, offline, a saved answer of GET /v1/audit/proof/inclusion (the event's entry hashes to
 * its leaf, the leaf is in the tree the signed checkpoint names) or of /v1/audit/proof/consistency
 * (`notes.old`, the earlier signed checkpoint; `notes.new`, the newer one, else the answer's
 * `checkpoint`), as `npm run verify-proof` does.
 */
export function checkProofAnswer(
  answer: Readonly<Record<string, unknown>>,
  signers: ProofSigners,
  notes: { readonly old?: unknown; readonly new?: unknown } = {},
): ProofVerdict {
  try {
    if (typeof answer.entry === 'string') {
      const head = signedCheckpoint(answer.checkpoint, 'signed', signers);
      const leaf = leafHash(Buffer.from(answer.entry, 'utf8'));
      const index = Number(answer.leaf_index);
      if (head.size !== Number(answer.tree_size)) {
        refuse({
          reason: `the checkpoint is of ${head.size} events, the proof of ${String(answer.tree_size)}`,
        });
      }
      const ok = verifyInclusion(leaf, index, head.size, hashes(answer.proof), head.root);
      return {
        ok,
        proof: 'inclusion',
        origin: head.origin,
        tree_size: head.size,
        leaf_index: index,
        ...(ok
          ? { entry: JSON.parse(answer.entry) as unknown }
          : { reason: 'the entry is not in the tree the checkpoint signs' }),
      };
    }
    const older = signedCheckpoint(notes.old, 'old', signers);
    const newer = signedCheckpoint(notes.new ?? answer.checkpoint, 'new', signers);
    if (older.size !== Number(answer.from) || newer.size !== Number(answer.to)) {
      refuse({
        reason: `the proof is from ${String(answer.from)} to ${String(answer.to)}, the checkpoints of ${older.size} and ${newer.size}`,
      });
    }
    const ok = verifyConsistency(
      older.size,
      newer.size,
      hashes(answer.proof),
      older.root,
      newer.root,
    );
    return {
      ok,
      proof: 'consistency',
      origin: newer.origin,
      from: older.size,
      to: newer.size,
      ...(ok
        ? {}
        : { reason: 'the newer tree does not extend the older one: history was changed' }),
    };
  } catch (error) {
    if (error instanceof Refused) return error.verdict;
    throw error;
  }
}
