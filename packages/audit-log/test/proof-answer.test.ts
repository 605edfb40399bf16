import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkProofAnswer } from '../src/check/proof-answer.js';
import { checkpointText } from '../src/transparency/checkpoint.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  memoryTree,
  treeRoot,
} from '../src/transparency/merkle.js';
import { noteSigner, noteVerifier, signNote } from '../src/transparency/signed-note.js';

const ORIGIN = 'log.example/audit/log';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const signer = noteSigner(ORIGIN, privateKey);
const signers = { logKey: noteVerifier(ORIGIN, publicKey), witnesses: [], minimum: 0 };
const entries = Array.from({ length: 9 }, (_, i) => JSON.stringify({ n: i }));
const tree = memoryTree(entries.map((entry) => leafHash(Buffer.from(entry))));
const head = (size: number) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [signer]);
const b64 = (hashes: readonly Buffer[]) => hashes.map((hash) => hash.toString('base64'));

describe('a saved proof answer checked offline', () => {
  it('holds an inclusion proof to its signed checkpoint, and refuses another entry', () => {
    const answer = {
      entry: entries[3],
      leaf_index: 3,
      tree_size: 9,
      proof: b64(inclusionProof(tree, 3, 9)),
      checkpoint: head(9),
    };
    expect(checkProofAnswer(answer, signers)).toMatchObject({ ok: true, proof: 'inclusion' });
    expect(checkProofAnswer({ ...answer, entry: entries[4] }, signers)).toMatchObject({
      ok: false,
      reason: 'the entry is not in the tree the checkpoint signs',
    });
  });

  it('holds a consistency proof to both signed checkpoints', () => {
    const answer = { from: 4, to: 9, proof: b64(consistencyProof(tree, 4, 9)) };
    const verdict = checkProofAnswer(answer, signers, { old: head(4), new: head(9) });
    expect(verdict).toEqual({ ok: true, proof: 'consistency', origin: ORIGIN, from: 4, to: 9 });
    expect(checkProofAnswer(answer, signers, { new: head(9) })).toEqual({
      ok: false,
      reason: 'no old checkpoint',
    });
  });
});
