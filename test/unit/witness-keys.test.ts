import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointText } from '#audit-log/transparency/checkpoint.js';
import { cosignatureLine } from '#audit-log/transparency/cosignature.js';
import {
  consistencyProof,
  leafHash,
  memoryTree,
  treeRoot,
} from '#audit-log/transparency/merkle.js';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  parseNote,
  signNote,
  verifierKeyText,
} from '#audit-log/transparency/signed-note.js';
import { cosigners, distinctWitnesses } from '#audit-log/transparency/witness-keys.js';

const run = promisify(execFile);
const dir = await mkdtemp(path.join(tmpdir(), 'witness-keys-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const ORIGIN = 'token-authority.test/audit/log';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const tree = memoryTree(Array.from({ length: 20 }, (_, i) => leafHash(Buffer.from([i]))));
const privateKey = generateKeyPairSync('ed25519').privateKey;
// One witness's key, under its name and under another: a cosignature does not sign the name.
const w1 = noteSigner('witness.test/w1', privateKey, COSIGNATURE_ED25519);
const alias = noteSigner('witness.test/alias', privateKey, COSIGNATURE_ED25519);
const other = noteSigner(
  'witness.test/w2',
  generateKeyPairSync('ed25519').privateKey,
  COSIGNATURE_ED25519,
);
/** A head of `size` cosigned by w1, and the same cosignature restated under the alias's name. */
const cosigned = (size: number) => {
  const note = signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [
    log,
  ]);
  const text = parseNote(note).text;
  return `${note}${cosignatureLine(w1, text, 1_795_000_000)}${cosignatureLine(alias, text, 1_795_000_000)}`;
};

describe('witness keys', () => {
  it('count one public key once, whatever names it is given under', () => {
    expect(distinctWitnesses([w1, alias, other, w1]).map((key) => key.name)).toEqual([
      'witness.test/w1',
      'witness.test/w2',
    ]);
    expect(cosigners(cosigned(8), [w1, alias]).map((key) => key.name)).toEqual(['witness.test/w1']);
    expect(cosigners(cosigned(8), [w1, alias, other])).toHaveLength(1);
  });

  it('verify-proof does not let one witness given twice meet --min-cosignatures=2', async () => {
    const files = ['answer.json', 'old.checkpoint', 'new.checkpoint'].map((name) =>
      path.join(dir, name),
    );
    const proof = consistencyProof(tree, 8, 20).map((hash) => hash.toString('base64'));
    await writeFile(files[0]!, JSON.stringify({ from: 8, to: 20, proof }));
    await writeFile(files[1]!, cosigned(8));
    await writeFile(files[2]!, cosigned(20));
    const verifyProof = (...witnesses: string[]) =>
      run(process.execPath, [
        '--import',
        'tsx',
        'src/cli/verify-proof.ts',
        files[0]!,
        `--key=${verifierKeyText(log)}`,
        `--old=${files[1]}`,
        `--new=${files[2]}`,
        ...witnesses.map((key) => `--witness=${key}`),
        '--min-cosignatures=2',
      ]).then(
        (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const twice = await verifyProof(verifierKeyText(w1), verifierKeyText(w1));
    expect(twice).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/distinct --witness keys given \(1\)/),
    });
    const renamed = await verifyProof(verifierKeyText(w1), verifierKeyText(alias));
    expect(renamed.code).toBe(2);
    // Two distinct witnesses, one of which cosigned: one of two.
    const short = await verifyProof(verifierKeyText(w1), verifierKeyText(other));
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stdout)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/has 1 of 2/),
    });
  }, 30_000);
});
