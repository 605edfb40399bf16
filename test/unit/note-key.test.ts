import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { openNote, parseVerifierKey } from '#audit-log/transparency/signed-note.js';
import { tempDir } from '../support/after-file.js';

const run = promisify(execFile);
const noteKey = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/note-key.ts', ...args]);

describe('npm run note-key (the verifier key of signed tree heads, derived offline)', () => {
  it('prints, from the audit public JWK alone, the key that opens each tree head and no other tree’s', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const dir = await tempDir('note-key-');
    const file = path.join(dir, 'audit-key.pub.json');
    await writeFile(file, JSON.stringify(publicKey.export({ format: 'jwk' })));
    const issuer = 'https://auth.example/';
    const logKey = (await noteKey(`--key=${file}`, `--issuer=${issuer}`, '--log')).stdout.trim();
    const spaceKey = (
      await noteKey(`--key=${file}`, `--issuer=${issuer}`, '--space=s1')
    ).stdout.trim();
    expect(logKey).toMatch(/^auth\.example\/audit\/log\+[0-9a-f]{8}\+/);
    expect(spaceKey).toMatch(/^auth\.example\/audit\/space\/s1\+[0-9a-f]{8}\+/);

    const root = Buffer.alloc(32, 7);
    const logHead = signTreeHead({ publicKey, privateKey }, treeOrigin(issuer, ''), 5, root);
    const spaceHead = signTreeHead({ publicKey, privateKey }, treeOrigin(issuer, 's1'), 5, root);
    expect(openNote(logHead, parseVerifierKey(logKey))).toBeDefined();
    expect(openNote(spaceHead, parseVerifierKey(spaceKey))).toBeDefined();
    expect(openNote(spaceHead, parseVerifierKey(logKey))).toBeUndefined();
  });

  it('refuses a key that is not an Ed25519 public JWK, and a missing tree, with exit code 2', async () => {
    const dir = await tempDir('note-key-');
    const file = path.join(dir, 'rsa.json');
    await writeFile(file, JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB' }));
    await expect(
      noteKey(`--key=${file}`, '--issuer=https://a.example', '--log'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not an Ed25519 public JWK'),
    });
    await expect(noteKey(`--key=${file}`, '--issuer=https://a.example')).rejects.toMatchObject({
      code: 2,
    });
  });
});
