import { parseCheckpointText } from '../transparency/checkpoint.js';
import { cosignatureOf } from '../transparency/cosignature.js';
import { leafHash, verifyInclusion } from '../transparency/merkle.js';
import { mlDsaMissing } from '../transparency/ml-dsa.js';
import { openNote } from '../transparency/signed-note.js';
import { parseTlogProof } from '../transparency/tlog-proof.js';
import type { TlogPolicy } from '../transparency/tlog-policy.js';
import type { ProofVerdict } from './proof-answer.js';

/**
 * A C2SP tlog-proof checked offline against a tlog-policy: its checkpoint signed by a log the
 * policy lists (the key named for the checkpoint's origin), cosigned by a quorum of the policy's
 * witnesses, and its entry (`extra`) at `index` in the checkpointed tree. With `jti`, the entry
 * must also be that token's issuance (its stream `token-<jti>`, first of it). An ML-DSA-44
 * cosignature this Node cannot check (before Node 24.6) counts for nothing: the verdict names its
 * witness under `unverifiable`.
 */
export function checkTlogProof(
  text: string,
  policy: TlogPolicy,
  expect: { readonly jti?: string } = {},
): ProofVerdict {
  let proof: ReturnType<typeof parseTlogProof>;
  try {
    proof = parseTlogProof(text);
  } catch (error) {
    return { ok: false, reason: 'malformed', detail: (error as Error).message };
  }
  let signed: string | undefined;
  for (const log of policy.logs) {
    signed = openNote(proof.checkpoint, log);
    if (signed !== undefined && signed.startsWith(`${log.name}\n`)) break;
    signed = undefined;
  }
  if (signed === undefined) return { ok: false, reason: 'checkpoint_not_signed_by_a_policy_log' };
  const checkpoint = parseCheckpointText(signed);
  const found = [...policy.witnesses].map(
    ([name, key]) => [name, cosignatureOf(proof.checkpoint, key)] as const,
  );
  const cosigned = new Set(found.filter(([, at]) => typeof at === 'number').map(([name]) => name));
  const unverifiable = found.filter(([, at]) => at === 'unverifiable').map(([name]) => name);
  const unchecked =
    unverifiable.length === 0
      ? {}
      : { unverifiable, unverifiable_why: `ML-DSA-44 cosignatures not counted: ${mlDsaMissing()}` };
  if (!policy.quorumMet(cosigned)) {
    return { ok: false, reason: 'quorum_not_met', cosigned: [...cosigned], ...unchecked };
  }
  if (!proof.extra) return { ok: false, reason: 'no_entry', detail: 'no extra line: the entry' };
  const leaf = leafHash(proof.extra);
  if (!verifyInclusion(leaf, proof.index, checkpoint.size, proof.proof, checkpoint.root)) {
    return { ok: false, reason: 'not_included', origin: checkpoint.origin };
  }
  let entry: { stream_id?: unknown; stream_position?: unknown };
  try {
    entry = JSON.parse(proof.extra.toString('utf8')) as typeof entry;
  } catch {
    return { ok: false, reason: 'malformed', detail: 'the entry is not JSON' };
  }
  if (
    expect.jti !== undefined &&
    (entry.stream_id !== `token-${expect.jti}` || entry.stream_position !== 1)
  ) {
    return { ok: false, reason: 'another_entry', detail: `not the issuance of ${expect.jti}` };
  }
  return {
    ok: true,
    proof: 'tlog-proof',
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
    leaf_index: proof.index,
    cosigned: [...cosigned],
    ...unchecked,
    entry,
  };
}
