import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointText } from '../../src/transparency/checkpoint.js';
import { cosignedAt } from '../../src/transparency/cosignature.js';
import {
  consistencyProof,
  leafHash,
  memoryTree,
  treeRoot,
  type TreeHashes,
} from '../../src/transparency/merkle.js';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  noteVerifier,
  openNote,
  signNote,
  type NoteVerifier,
} from '../../src/transparency/signed-note.js';
import { EMPTY_ROOT } from '../../src/transparency/merkle.js';
import {
  addCheckpoint,
  memoryWitnessState,
  MAX_ORIGIN_BYTES,
  originHash,
} from '../../src/transparency/witness.js';

const ORIGIN = 'token-authority.test/space/shop';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const witnessKey = noteSigner(
  'witness.test/w1',
  generateKeyPairSync('ed25519').privateKey,
  COSIGNATURE_ED25519,
);
const events = (n: number, edited?: number) =>
  memoryTree(
    Array.from({ length: n }, (_, i) =>
      leafHash(Buffer.from(`event ${i}${i === edited ? ' (edited)' : ''}`)),
    ),
  );
const honest = events(20);

const note = (tree: TreeHashes, size: number, signer = log) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [signer]);
const body = (old: number, proof: Buffer[], checkpoint: string) =>
  `old ${old}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${checkpoint}`;

function witness(
  logs: { get(origin: string): NoteVerifier | undefined } = new Map([[ORIGIN, log]]),
  state = memoryWitnessState(),
) {
  const options = {
    witness: witnessKey,
    logs,
    state,
    nowSeconds: () => 1_795_000_000,
  };
  return { state, submit: (request: string) => addCheckpoint(request, options) };
}

describe('the witness (C2SP tlog-witness add-checkpoint)', () => {
  it('cosigns a first checkpoint, then only a consistent extension of it; the cosignature verifies', async () => {
    const { submit } = witness();
    const first = await submit(body(0, [], note(honest, 8)));
    expect(first.status).toBe(200);
    expect(cosignedAt(note(honest, 8) + first.body, witnessKey)).toBe(1_795_000_000);
    const next = await submit(body(8, consistencyProof(honest, 8, 20), note(honest, 20)));
    expect(next.status).toBe(200);
    expect(cosignedAt(note(honest, 20) + next.body, witnessKey)).toBe(1_795_000_000);
    // A cosignature on one checkpoint is not one on another.
    expect(cosignedAt(note(honest, 8) + next.body, witnessKey)).toBeUndefined();
  });

  it('refuses a rewritten history: an edited old event, resealed and signed by the log, is never cosigned', async () => {
    const { submit, state } = witness();
    expect((await submit(body(0, [], note(honest, 8)))).status).toBe(200);
    const rewritten = events(20, 3);
    // The owner's own proof is consistent within the rewritten tree, not with what was cosigned.
    const extension = await submit(
      body(8, consistencyProof(rewritten, 8, 20), note(rewritten, 20)),
    );
    expect(extension).toMatchObject({ status: 422 });
    // The same size with another root is a fork of what it cosigned: 422 (C2SP, July 2026).
    const sameSize = await submit(body(8, [], note(rewritten, 8)));
    expect(sameSize).toMatchObject({ status: 422 });
    expect((await state.latest(ORIGIN))?.root).toEqual(treeRoot(honest, 8));
  });

  it('answers 409 with its size when the old size is not the one it cosigned, and never rolls back', async () => {
    const { submit } = witness();
    await submit(body(0, [], note(honest, 8)));
    await submit(body(8, consistencyProof(honest, 8, 12), note(honest, 12)));
    const stale = await submit(body(8, consistencyProof(honest, 8, 10), note(honest, 10)));
    expect(stale).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '12\n' });
  });

  it('of two extensions racing from one head, cosigns exactly one', async () => {
    const { submit } = witness();
    await submit(body(0, [], note(honest, 8)));
    const answers = await Promise.all([
      submit(body(8, consistencyProof(honest, 8, 12), note(honest, 12))),
      submit(body(8, consistencyProof(honest, 8, 16), note(honest, 16))),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  });

  it('refuses a checkpoint no trusted log key signed (403), an unknown log (404), and garbage (400)', async () => {
    const { submit } = witness();
    const forger = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
    expect((await submit(body(0, [], note(honest, 8, forger)))).status).toBe(403);
    // A good signature beside a bad line under the log's own key name and id: 403 (C2SP).
    const good = note(honest, 8);
    const [text, signatures] = good.split('\n\n');
    const line = signatures!.split('\n')[0]!;
    const blob = Buffer.from(line.split(' ')[2]!, 'base64');
    blob[blob.length - 1] = blob[blob.length - 1]! ^ 1;
    const spoiled = `${text}\n\n${line}\n— ${ORIGIN} ${blob.toString('base64')}\n`;
    const fresh = witness().submit;
    expect((await fresh(body(0, [], spoiled))).status).toBe(403);
    expect((await fresh(body(0, [], good))).status).toBe(200);
    const stranger = noteSigner('elsewhere.test/log', generateKeyPairSync('ed25519').privateKey);
    const unknown = signNote(
      checkpointText({ origin: 'elsewhere.test/log', size: 1, root: treeRoot(honest, 1) }),
      [stranger],
    );
    expect((await submit(body(0, [], unknown))).status).toBe(404);
    expect((await submit('old 01\n\nnot a checkpoint\n')).status).toBe(400);
    expect((await submit(body(0, [treeRoot(honest, 1)], note(honest, 8)))).status).toBe(422);
  });

  it('needs no proof from size 0: a cosigned empty tree does not wedge its origin', async () => {
    const { submit } = witness();
    const empty = signNote(checkpointText({ origin: ORIGIN, size: 0, root: EMPTY_ROOT }), [log]);
    expect((await submit(body(0, [], empty))).status).toBe(200);
    // Any tree extends the empty one; before, this was a 422 for every size, forever.
    expect((await submit(body(0, [], note(honest, 8)))).status).toBe(200);
    expect((await submit(body(8, consistencyProof(honest, 8, 20), note(honest, 20)))).status).toBe(
      200,
    );
  });

  it('refuses sizes past 2^53 - 1 (400) instead of rounding them to another size', async () => {
    const { submit, state } = witness();
    const huge = '9007199254740993'; // 2^53 + 1: Number() makes it 2^53
    const text = `${ORIGIN}\n${huge}\n${treeRoot(honest, 8).toString('base64')}\n`;
    expect((await submit(body(0, [], signNote(text, [log])))).status).toBe(400);
    expect(await state.latest(ORIGIN)).toBeUndefined();
    await submit(body(0, [], note(honest, 8)));
    expect((await submit(`old ${huge}\n\n${note(honest, 20)}`)).status).toBe(400);
    expect((await state.latest(ORIGIN))?.size).toBe(8);
  });

  it('bounds what a prefix-trusted key can make it keep: origin length and number of origins', async () => {
    // As the CLI trusts `<prefix>*`: any origin under the prefix, signed by one key.
    const prefixKey = generateKeyPairSync('ed25519').privateKey;
    const logs = {
      get: (origin: string) =>
        origin.startsWith('log.test/space/')
          ? noteVerifier(origin, noteSigner(origin, prefixKey).publicKey)
          : undefined,
    };
    const state = memoryWitnessState([], 2);
    const { submit } = witness(logs, state);
    const spaceNote = (origin: string) =>
      signNote(checkpointText({ origin, size: 8, root: treeRoot(honest, 8) }), [
        noteSigner(origin, prefixKey),
      ]);
    const long = `log.test/space/${'x'.repeat(MAX_ORIGIN_BYTES)}`;
    expect(await submit(body(0, [], spaceNote(long)))).toMatchObject({ status: 400 });
    expect((await submit(body(0, [], spaceNote('log.test/space/a')))).status).toBe(200);
    expect((await submit(body(0, [], spaceNote('log.test/space/b')))).status).toBe(200);
    expect((await submit(body(0, [], spaceNote('log.test/space/c')))).status).toBe(403);
    expect(state.entries().map(([origin]) => origin)).toEqual([
      'log.test/space/a',
      'log.test/space/b',
    ]);
  });
});

describe('the witness monitoring GET (C2SP tlog-witness)', () => {
  it('keeps, by its origin hash, the checkpoint it last cosigned with one log line and its cosignature', async () => {
    const { state, submit } = witness();
    expect(await state.byOriginHash(originHash(ORIGIN))).toBeUndefined();
    const answer = await submit(body(0, [], note(honest, 8)));
    const kept = await state.byOriginHash(originHash(ORIGIN));
    expect(kept).toBeDefined();
    expect(kept!.endsWith(answer.body)).toBe(true);
    expect(cosignedAt(kept!, witnessKey)).toBe(1_795_000_000);
    expect(openNote(kept!, log)).toBe(
      checkpointText({ origin: ORIGIN, size: 8, root: treeRoot(honest, 8) }),
    );
  });

  it('keeps one log line however many are sent, refuses a checkpoint too large to keep, and keeps the note of a head sent again', async () => {
    const { state, submit } = witness();
    const signed = note(honest, 8);
    const [text, signatures] = signed.split('\n\n');
    const line = signatures!.split('\n')[0]!;
    // The same valid line 200 times: each verifies; one is kept.
    const padded = `${text}\n\n${Array.from({ length: 200 }, () => `${line}\n`).join('')}`;
    expect((await submit(body(0, [], padded))).status).toBe(200);
    const first = await state.byOriginHash(originHash(ORIGIN));
    expect(Buffer.byteLength(first!)).toBeLessThan(512);
    const again = await submit(body(8, [], signed));
    expect(again.status).toBe(200);
    expect(await state.byOriginHash(originHash(ORIGIN))).toBe(first);
    // A checkpoint whose own lines would not fit a kept note: 400, nothing kept.
    const big = witness();
    const huge = signNote(
      checkpointText({
        origin: ORIGIN,
        size: 8,
        root: treeRoot(honest, 8),
        extensions: Array.from({ length: 60 }, (_, i) => `extension ${i} ${'x'.repeat(80)}`),
      }),
      [log],
    );
    expect((await big.submit(body(0, [], huge))).status).toBe(400);
    expect(await big.state.byOriginHash(originHash(ORIGIN))).toBeUndefined();
  });
});
