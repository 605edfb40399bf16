import { checkpointDigest, type CheckpointStatement } from './jws-checkpoint.js';

/** What the checkpoints of an export can be found guilty of. */
export type CheckpointFailure =
  'checkpoint_forged' | 'checkpoint_missing' | 'checkpoint_mismatch' | 'events_cut_at_end';

/** What the exported events established, for the checkpoints to be held against. */
export interface ExportedChain {
  readonly spaceId: string | null;
  readonly first: number | null;
  readonly last: number | null;
  /** Each exported event's link, by sequence. */
  readonly hashes: ReadonlyMap<number, string>;
}

/**
 * Checks an export's checkpoints against its events: each signature (with `verify`, the audit
 * public key; else only read), the checkpoints' own chain (numbers without gaps, each naming the
 * one before), and each checkpoint's head against the exported link at its sequence; a checkpoint
 * past the last exported event means events were cut from the end. Gives the last sequence a
 * checkpoint anchors, or the first failure and the line it stands on.
 */
export function checkExportCheckpoints(
  checkpoints: readonly { readonly line: number; readonly jws: string }[],
  chain: ExportedChain,
  verify?: (jws: string) => CheckpointStatement | undefined,
  read?: (jws: string) => CheckpointStatement | undefined,
):
  | { readonly ok: true; readonly anchoredThrough: number | null }
  | {
      readonly ok: false;
      readonly reason: CheckpointFailure;
      readonly line: number;
      readonly sequence: number | null;
      readonly detail: string;
    } {
  const { spaceId, first, last, hashes } = chain;
  let lastCheckpoint: { number: number; digest: string } | undefined;
  let anchoredThrough: number | null = null;
  for (const checkpoint of checkpoints) {
    const fail = (reason: CheckpointFailure, sequence: number | null, detail: string) =>
      ({ ok: false, reason, line: checkpoint.line, sequence, detail }) as const;
    const statement = verify ? verify(checkpoint.jws) : read?.(checkpoint.jws);
    if (!statement) {
      return fail('checkpoint_forged', null, 'checkpoint signature does not verify under the key');
    }
    if (spaceId !== null && statement.space_id !== spaceId) {
      return fail('checkpoint_forged', null, `checkpoint of another space (${statement.space_id})`);
    }
    // An export from the space's first event must hold its first checkpoint too: the first
    // checkpoint is made after that event was sealed, so inside the same time range.
    if (!lastCheckpoint && first === 1 && statement.checkpoint_number !== 1) {
      return fail(
        'checkpoint_missing',
        null,
        `checkpoints 1..${statement.checkpoint_number - 1} are missing`,
      );
    }
    if (
      lastCheckpoint &&
      (statement.checkpoint_number !== lastCheckpoint.number + 1 ||
        statement.previous_checkpoint !== lastCheckpoint.digest)
    ) {
      return fail(
        'checkpoint_missing',
        null,
        `checkpoint ${statement.checkpoint_number} does not follow checkpoint ${lastCheckpoint.number}`,
      );
    }
    lastCheckpoint = {
      number: statement.checkpoint_number,
      digest: checkpointDigest(checkpoint.jws),
    };
    if (first === null || statement.sequence < first) continue;
    if (last !== null && statement.sequence > last) {
      return fail(
        'events_cut_at_end',
        last + 1,
        `checkpoint ${statement.checkpoint_number} covers events up to ${statement.sequence}; the export ends at ${last}`,
      );
    }
    if (hashes.get(statement.sequence) !== statement.head_hash) {
      return fail(
        'checkpoint_mismatch',
        statement.sequence,
        `checkpoint ${statement.checkpoint_number} signed another link ${statement.sequence}`,
      );
    }
    anchoredThrough = statement.sequence;
  }
  return { ok: true, anchoredThrough };
}
