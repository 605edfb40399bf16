import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { afterFile, tempDir } from '../../support/after-file.js';
import { deepImport, packedPackageProject, promisedLine } from '../../support/consumer-project.js';
import { createTestToken, SOFTHSM_MODULE } from '../../support/softhsm.js';

/**
 * Issue 66, item 4: packages/pkcs11-signer packed alone, installed into an empty project (which
 * builds its optional native binding, pkcs11js, there), runs its README's example against a
 * SoftHSM2 token of this test's own and prints the line the README says; deep paths are closed.
 */
const run = promisify(execFile);
const NAME = 'token-authority-pkcs11-signer';

// CI installs SoftHSM2 (.ci/run), so there a missing one fails (createTestToken says what to
// install); elsewhere the skip is said.
const softHsm =
  existsSync(SOFTHSM_MODULE) && spawnSync('softhsm2-util', ['--version']).status === 0;
const skipped = !softHsm && process.env.CI !== 'true';
if (skipped) {
  console.error(
    `${NAME} package test skipped: SoftHSM2 is not installed (apt-get install softhsm2)`,
  );
}

// The key the example signs with, made in the token through the package's front door.
const KEYGEN = `import { openPkcs11Signer } from '${NAME}';
const { PKCS11_MODULE: module, PKCS11_TOKEN_LABEL: tokenLabel, PKCS11_PIN: pin } = process.env;
const items = [];
const createQueue = () => ({ offer: (_s, i) => items.push(i) > 0, take: (n) => items.splice(0, n), size: () => items.length });
const signer = await openPkcs11Signer({ module, tokenLabel, pin, maxKeys: 1 }, { createQueue, keySpace: 'keys' });
try { console.log((await signer.generate()).kid); } finally { await signer.close(); }
`;

describe(`packages/pkcs11-signer, packed alone`, () => {
  it.skipIf(skipped)(
    "installs into an empty project, signs and verifies there with its README's example in SoftHSM2, opens only its front door",
    async () => {
      const { project, files, example } = await packedPackageProject(
        path.resolve('packages/pkcs11-signer'),
        await tempDir('package-pkcs11-signer-'),
        {},
        { scripts: true }, // pkcs11js is built from source
      );
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      expect(files).toContain('dist/worker.js'); // the signer's thread, started by path
      expect(files.filter((file) => /^(src|test)\//.test(file))).toEqual([]);

      const token = await createTestToken('pkcs11-signer-package');
      afterFile(() => token.remove());
      const env = {
        PATH: process.env.PATH,
        SOFTHSM2_CONF: token.conf,
        PKCS11_MODULE: SOFTHSM_MODULE,
        PKCS11_TOKEN_LABEL: token.label,
        PKCS11_PIN: token.pin,
      };
      await writeFile(path.join(project, 'keygen.mjs'), KEYGEN);
      const kid = (
        await run(process.execPath, ['keygen.mjs'], { cwd: project, env, timeout: 60_000 })
      ).stdout.trim();
      expect(kid).toMatch(/^[\w-]{43}$/);

      const promised = promisedLine(example);
      expect(promised, 'the example ends with "// prints <line>"').toBeDefined();
      const { stdout } = await run(process.execPath, ['example.mjs'], {
        cwd: project,
        env: { ...env, PKCS11_KID: kid },
        timeout: 60_000,
      });
      expect(JSON.parse(stdout)).toEqual(JSON.parse(promised!));

      expect(await deepImport(project, `${NAME}/token-session.js`)).toContain(
        'ERR_PACKAGE_PATH_NOT_EXPORTED',
      );
    },
    300_000,
  );
});
