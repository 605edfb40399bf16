import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { sealPrivateKey } from '../../../src/crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';

// Key ids, client ids and spaces are base64url: about one in 32 begins with "-". Every command
// that takes one must take it in both spellings, through the real CLI.
const tsx = path.resolve('node_modules/.bin/tsx');
let database: TestDatabase;
let dir: string;

async function cli(script: string, args: string[]) {
  return promisify(execFile)(tsx, [`src/cli/${script}.ts`, ...args], {
    env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dir, LOG_LEVEL: 'warn' },
    timeout: 60_000,
  }).then(
    (ok) => ({ code: 0, ...ok }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** A real Ed25519 signing key whose kid (its RFC 7638 thumbprint) begins with "-". */
async function insertKeyWithDashKid(): Promise<string> {
  for (;;) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk);
    if (!kid.startsWith('-')) continue;
    await database.db
      .insertInto('signing_keys')
      .values({
        kid,
        alg: 'EdDSA',
        private_jwk: JSON.stringify(
          sealPrivateKey(
            await loadKeyEncryptionKey(undefined, dir),
            kid,
            privateKey.export({ format: 'jwk' }),
          ),
        ),
        public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }),
        activates_at: new Date(),
        retired_at: null,
      })
      .execute();
    return kid;
  }
}

const retiredAt = async (kid: string) =>
  (
    await database.db
      .selectFrom('signing_keys')
      .select('retired_at')
      .where('kid', '=', kid)
      .executeTakeFirstOrThrow()
  ).retired_at;

beforeAll(async () => {
  database = await createTestDatabase(2);
  dir = await mkdtemp(path.join(tmpdir(), 'dash-values-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('command-line values beginning with "-"', () => {
  it.each([
    ['--kid <kid>', (kid: string) => ['--kid', kid]],
    ['--kid=<kid>', (kid: string) => [`--kid=${kid}`]],
  ])('retire-signing-key %s retires a key whose id begins with "-"', async (_form, args) => {
    const kid = await insertKeyWithDashKid();
    const { code, stdout, stderr } = await cli('retire-signing-key', args(kid));
    expect(stderr).not.toMatch(/ambiguous/);
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ kid, retired: true });
    expect(await retiredAt(kid)).not.toBeNull();
  });

  it('login-token --space <s> --subject <u> takes values beginning with "-"', async () => {
    const { code, stdout } = await cli('login-token', [
      '--space',
      '-space-a',
      '--space=-space-b',
      '--subject',
      '-user',
    ]);
    expect(code).toBe(0);
    const claims = decodeJwt(stdout.trim().split('\n').at(-1)!);
    expect(claims.sub).toBe('-user');
    expect(Object.values(claims).flat()).toEqual(expect.arrayContaining(['-space-a', '-space-b']));
  });

  it('projector --rebuild <view> hears a value beginning with "-" as the view name', async () => {
    const { code, stderr } = await cli('projector', ['--rebuild', '-audit']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown view "-audit"');
  });

  it('an unknown option is a usage error (exit 2 with the usage), not a stack trace', async () => {
    const { code, stderr } = await cli('retire-signing-key', ['--kidd', 'x']);
    expect(code).toBe(2);
    expect(stderr).toContain('Usage: npm run retire-signing-key -- --kid=<kid>');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
