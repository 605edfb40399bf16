import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointText } from '#audit-log/transparency/checkpoint.js';
import {
  consistencyProof,
  leafHash,
  memoryTree,
  treeRoot,
} from '#audit-log/transparency/merkle.js';
import { noteSigner, signNote, verifierKeyText } from '#audit-log/transparency/signed-note.js';

const run = promisify(execFile);
const dir = await mkdtemp(path.join(tmpdir(), 'fork-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const ORIGIN = 'token-authority.test/audit/log';
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const leaves = (n: number, edited?: number) =>
  Array.from({ length: n }, (_, i) => leafHash(Buffer.from(i === edited ? 'edited' : `e${i}`)));
const head = (tree: ReturnType<typeof memoryTree>, size: number) =>
  signNote(checkpointText({ origin: ORIGIN, size, root: treeRoot(tree, size) }), [log]);

/** `npm run verify-proof` on a consistency answer between two checkpoint files. */
async function compare(answer: unknown, older: string, newer: string) {
  const files = ['answer.json', 'old.checkpoint', 'new.checkpoint'].map((name) =>
    path.join(dir, name),
  );
  await writeFile(files[0]!, JSON.stringify(answer));
  await writeFile(files[1]!, older);
  await writeFile(files[2]!, newer);
  const result = await run(process.execPath, [
    '--import',
    'tsx',
    'src/cli/verify-proof.ts',
    files[0]!,
    `--key=${verifierKeyText(log)}`,
    `--old=${files[1]}`,
    `--new=${files[2]}`,
  ]).then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (error: { code: number; stdout: string }) => error,
  );
  return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
}

describe('a forked view, shown by comparing two signed heads', () => {
  const honest = memoryTree(leaves(40));
  const forked = memoryTree(leaves(40, 7)); // event 7 edited, the tree rebuilt and re-signed

  it('accepts two heads of one history joined by their consistency proof', async () => {
    const { code, verdict } = await compare(
      {
        from: 20,
        to: 40,
        proof: consistencyProof(honest, 20, 40).map((h) => h.toString('base64')),
      },
      head(honest, 20),
      head(honest, 40),
    );
    expect(verdict).toMatchObject({ ok: true, proof: 'consistency' });
    expect(code).toBe(0);
  }, 20_000);

  it('refuses two heads of the same size with different roots, both validly signed', async () => {
    const { code, verdict } = await compare(
      { from: 40, to: 40, proof: [] },
      head(honest, 40),
      head(forked, 40),
    );
    expect(verdict).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/history was changed/),
    });
    expect(code).toBe(1);
  }, 20_000);

  it('refuses a later head of the other branch whatever proof the log serves', async () => {
    // The best the log can do is the forked tree's own proof: it does not join the honest head.
    const { code, verdict } = await compare(
      {
        from: 20,
        to: 40,
        proof: consistencyProof(forked, 20, 40).map((h) => h.toString('base64')),
      },
      head(honest, 20),
      head(forked, 40),
    );
    expect(verdict).toMatchObject({ ok: false });
    expect(code).toBe(1);
  }, 20_000);
});
