import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointText } from '../../src/transparency/checkpoint.js';
import { cosignedAt } from '../../src/transparency/cosignature.js';
import { consistencyProof, leafHash, memoryTree, treeRoot } from '../../src/transparency/merkle.js';
import {
  noteSigner,
  parseVerifierKey,
  signNote,
  verifierKeyText,
} from '../../src/transparency/signed-note.js';
import { startWitnessProcess } from '../support/witness-process.js';

const dir = await mkdtemp(path.join(tmpdir(), 'witness-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const ORIGIN = 'token-authority.test/log';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const tree = memoryTree(Array.from({ length: 30 }, (_, i) => leafHash(Buffer.from([i]))));
const note = (size: number) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [log]);

const startWitness = () =>
  startWitnessProcess({
    name: 'witness.test/w1',
    logs: [`${ORIGIN}=${verifierKeyText(log)}`],
    dir,
  });

const submit = (url: string, old: number, proof: Buffer[], checkpoint: string) =>
  fetch(`${url}/add-checkpoint`, {
    method: 'POST',
    body: `old ${old}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${checkpoint}`,
  });

describe('npm run witness', () => {
  it('cosigns over HTTP with a key of its own, and remembers what it cosigned across a restart', async () => {
    const first = await startWitness();
    try {
      const answer = await submit(first.url, 0, [], note(10));
      expect(answer.status).toBe(200);
      const witness = parseVerifierKey(first.vkey);
      expect(cosignedAt(note(10) + (await answer.text()), witness)).toBeGreaterThan(1_700_000_000);
    } finally {
      first.child.kill('SIGTERM');
    }
    const second = await startWitness();
    try {
      expect(second.vkey).toBe(first.vkey);
      // It still holds size 10: starting over from the empty tree is refused with its size.
      const rollback = await submit(second.url, 0, [], note(5));
      expect(rollback.status).toBe(409);
      expect(await rollback.text()).toBe('10\n');
      const extension = await submit(second.url, 10, consistencyProof(tree, 10, 30), note(30));
      expect(extension.status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
    }
  }, 30_000);
});
