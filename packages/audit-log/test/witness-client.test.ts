import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkpointText } from '../src/transparency/checkpoint.js';
import { consistencyProof, leafHash, memoryTree, treeRoot } from '../src/transparency/merkle.js';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  noteVerifier,
  signNote,
  verifierKeyText,
} from '../src/transparency/signed-note.js';
import { addCheckpoint, memoryWitnessState } from '../src/transparency/witness.js';
import type { SignedTreeHead } from '../src/transparency/tree-head.js';
import { startWitnessing, type WitnessLedger } from '../src/witness/client.js';
import { parseWitnesses, WitnessListError } from '../src/witness/endpoints.js';

const ORIGIN = 'log.test/audit/log';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const witnessKey = noteSigner(
  'witness.test/w1',
  generateKeyPairSync('ed25519').privateKey,
  COSIGNATURE_ED25519,
);
const tree = memoryTree(Array.from({ length: 20 }, (_, i) => leafHash(Buffer.from(`e${i}`))));
const head = (size: number): SignedTreeHead => ({
  treeId: '',
  size,
  note: signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [log]),
});

function ledger(): WitnessLedger & { lines: Map<number, string> } {
  const lines = new Map<number, string>();
  return {
    lines,
    cosignedSize: async () => Math.max(0, ...lines.keys()),
    signedHead: async (_, size) => size <= 20,
    proveConsistency: async (_, from, to) => consistencyProof(tree, from, to),
    keepCosignature: async (h, _, line) => void lines.set(h.size, line),
  };
}

const quiet = { debug: () => undefined, warn: () => undefined, error: vi.fn() };

afterEach(() => vi.unstubAllGlobals());

describe('the witness client', () => {
  it('sends heads with consistency proofs and keeps the cosignatures that verify', async () => {
    const state = memoryWitnessState();
    const logs = new Map([[ORIGIN, noteVerifier(ORIGIN, log.publicKey)]]);
    vi.stubGlobal('fetch', async (_url: string, init: { body: string }) => {
      const answer = await addCheckpoint(init.body, {
        witness: witnessKey,
        logs,
        state,
        nowSeconds: () => 1_700_000_000,
      });
      return new Response(answer.body, { status: answer.status });
    });
    const [endpoint] = parseWitnesses(
      `http://w.test/add-checkpoint ${verifierText()}`,
      'WITNESSES',
    );
    const kept = ledger();
    const client = startWitnessing(kept, [endpoint!], { logger: quiet });
    client.submit(head(7));
    await client.idle();
    client.submit(head(15));
    await client.idle();
    await client.stop();
    expect([...kept.lines.keys()]).toEqual([7, 15]);
    expect(quiet.error).not.toHaveBeenCalled();
    expect((await state.latest(ORIGIN))?.size).toBe(15);
  });

  it('names the setting and the entry of a witness list that does not read', () => {
    expect(() => parseWitnesses('http://w.test/add-checkpoint', 'WITNESSES')).toThrow(
      WitnessListError,
    );
    expect(() => parseWitnesses(`ftp://w.test ${verifierText()}`, 'WITNESSES')).toThrow(
      /WITNESSES: entry 1 .*http\(s\) URL/,
    );
  });
});

function verifierText(): string {
  return verifierKeyText(noteVerifier(witnessKey.name, witnessKey.publicKey, COSIGNATURE_ED25519));
}
