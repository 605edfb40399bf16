import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointText } from '#audit-log/transparency/checkpoint.js';
import { cosignedAt } from '#audit-log/transparency/cosignature.js';
import {
  consistencyProof,
  leafHash,
  memoryTree,
  treeRoot,
} from '#audit-log/transparency/merkle.js';
import {
  noteSigner,
  parseVerifierKey,
  signNote,
  verifierKeyText,
} from '#audit-log/transparency/signed-note.js';
import {
  startWitnessProcess,
  witnessRefusal,
  type WitnessProcess,
} from '../support/witness-process.js';

const dir = await mkdtemp(path.join(tmpdir(), 'witness-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const ORIGIN = 'token-authority.test/log';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const tree = memoryTree(Array.from({ length: 30 }, (_, i) => leafHash(Buffer.from([i]))));
const note = (size: number) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [log]);

const options = (folder = dir) => ({
  name: 'witness.test/w1',
  logs: [`${ORIGIN}=${verifierKeyText(log)}`],
  dir: folder,
});
const startWitness = (folder = dir) => startWitnessProcess(options(folder));
/** A folder of its own for one test. */
const subdir = async (name: string) => {
  const folder = path.join(dir, name);
  await mkdir(folder);
  return folder;
};
const stop = async (witness: WitnessProcess, signal: NodeJS.Signals = 'SIGTERM') => {
  const exited = new Promise((resolve) => witness.child.once('exit', resolve));
  witness.child.kill(signal);
  await exited;
};
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
/** Another history of the same log: signed by the log's key, a fork of `tree`. */
const forked = memoryTree(Array.from({ length: 30 }, (_, i) => leafHash(Buffer.from([i, 1]))));
const forkNote = (size: number) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(forked, size) }), [log]);

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

  it('refuses to start with its key but without the record of what it cosigned (it would cosign a fork)', async () => {
    const folder = await subdir('lost-state');
    const first = await startWitness(folder);
    expect((await submit(first.url, 0, [], note(10))).status).toBe(200);
    await stop(first);
    expect(await exists(path.join(folder, 'witness.lock'))).toBe(false); // released on exit
    await rename(path.join(folder, 'state.json'), path.join(folder, 'state.json.kept'));
    const refused = await witnessRefusal(options(folder));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/witness\.key is there without state\.json/);
    // With its record back, the fork of the same size is refused (422: C2SP, July 2026).
    await rename(path.join(folder, 'state.json.kept'), path.join(folder, 'state.json'));
    const back = await startWitness(folder);
    try {
      const fork = await submit(back.url, 10, [], forkNote(10));
      expect(fork.status).toBe(422);
      expect(await fork.text()).toMatch(/another root at the size 10/);
    } finally {
      await stop(back);
    }
  }, 30_000);

  it('refuses a record it cannot read or parse, and leaves it as it was', async () => {
    const folder = await subdir('bad-state');
    await stop(await startWitness(folder));
    const file = path.join(folder, 'state.json');
    // A read error (here: a folder where the file should be) is not an empty record.
    await rename(file, `${file}.kept`);
    await mkdir(file);
    const unreadable = await witnessRefusal(options(folder));
    expect(unreadable).toMatchObject({ code: 2, stderr: expect.stringMatching(/EISDIR/) });
    await rm(file, { recursive: true });
    for (const damaged of [
      '{"token-authority.test/log":',
      '{"token-authority.test/log":{"size":"10"}}',
    ]) {
      await writeFile(file, damaged);
      const refused = await witnessRefusal(options(folder));
      expect(refused).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/the witness state .* cannot be used/),
      });
      expect(await readFile(file, 'utf8')).toBe(damaged);
    }
  }, 30_000);

  it('holds its folder: a second witness on one --dir is refused while the first runs; a dead one’s lock is taken over', async () => {
    const folder = await subdir('locked');
    const first = await startWitness(folder);
    try {
      const second = await witnessRefusal(options(folder));
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`process ${first.child.pid} holds it`));
    } finally {
      await stop(first, 'SIGKILL'); // no exit handler runs: the lock file stays behind
    }
    expect(await exists(path.join(folder, 'witness.lock'))).toBe(true);
    const next = await startWitness(folder);
    try {
      expect(next.vkey).toBe(first.vkey);
      expect((await submit(next.url, 0, [], note(5))).status).toBe(200);
    } finally {
      await stop(next);
    }
  }, 30_000);

  it('listens on 127.0.0.1 unless --host says otherwise', async () => {
    const witness = await startWitness(await subdir('host'));
    try {
      expect(witness.output()).toMatch(/ on 127\.0\.0\.1:\d+, cosigning/);
      const port = Number(new URL(witness.url).port);
      const outward = Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === 'IPv4' && !address.internal);
      if (outward) {
        const reached = await new Promise<boolean>((resolve) => {
          const socket = connect(port, outward.address);
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
        expect(reached).toBe(false);
      }
    } finally {
      await stop(witness);
    }
  }, 30_000);
});
