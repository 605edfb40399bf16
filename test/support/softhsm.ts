import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian's SoftHSM2 library (package softhsm2), the PKCS11_MODULE default. */
export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

/** A SoftHSM2 token of the test's own, in a temporary directory (never the system's tokens). */
export interface TestToken {
  readonly label: string;
  readonly pin: string;
  readonly soPin: string;
  /** Its SOFTHSM2_CONF: the library reads it at C_Initialize. */
  readonly conf: string;
  remove(): Promise<void>;
}

/**
 * Makes a fresh token `label` in a temporary token directory and points SOFTHSM2_CONF at it, for
 * this process and the signer threads it starts. Throws, saying what to install, when SoftHSM2
 * is not there: a PKCS#11 test never passes by skipping.
 */
export async function createTestToken(
  label = 'token-authority-test',
  /** Another token to sit beside, in its directory: a library already initialised sees only it. */
  beside?: TestToken,
): Promise<TestToken> {
  if (!existsSync(SOFTHSM_MODULE) || !hasSoftHsmUtil()) {
    throw new Error(
      `SoftHSM2 is not installed (${SOFTHSM_MODULE}, softhsm2-util): the PKCS#11 tests need it. Install it with \`apt-get install -y softhsm2\` (.ci/run does).`,
    );
  }
  const dir = beside
    ? path.dirname(beside.conf)
    : await mkdtemp(path.join(tmpdir(), 'token-authority-softhsm-'));
  const conf = path.join(dir, 'softhsm2.conf');
  if (!beside) {
    const tokens = path.join(dir, 'tokens');
    await mkdir(tokens);
    await writeFile(
      conf,
      `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`,
    );
  }
  process.env.SOFTHSM2_CONF = conf;
  const token = { label, pin: '4711-user', soPin: '4711-so', conf };
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', label, '--so-pin', token.soPin, '--pin', token.pin],
    { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: 'pipe' },
  );
  const remove = () => (beside ? Promise.resolve() : rm(dir, { recursive: true, force: true }));
  return { ...token, remove };
}

function hasSoftHsmUtil(): boolean {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/**
 * How many objects the tokens of `token`'s directory hold: SoftHSM2's file store keeps each token
 * object (a key pair is two) as one `.object` file, so a leak shows without a session of our own.
 */
export async function tokenObjectCount(token: TestToken): Promise<number> {
  const tokens = path.join(path.dirname(token.conf), 'tokens');
  const files = await readdir(tokens, { recursive: true });
  return files.filter((file) => file.endsWith('.object')).length;
}
