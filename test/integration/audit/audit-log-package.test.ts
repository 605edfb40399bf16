import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { tempDir } from '../../support/after-file.js';
import { deepImport, packedPackageProject, packedTarball } from '../../support/consumer-project.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 66, item 4, for packages/audit-log: a package a user could take. `npm pack` of it alone
 * installs into an empty project, whose only door is the package's front door, and the usage
 * example of its README, run there as written, checks a receipt the real service gave.
 */
const run = promisify(execFile);
const PACKAGE = path.resolve('packages/audit-log');
const clock = { pinned: undefined as number | undefined, now: () => clock.pinned ?? Date.now() };
let service: TestService;
let project: string;
let packed: string[];
let jti: string;

beforeAll(async () => {
  ({ project, files: packed } = await packedPackageProject(
    PACKAGE,
    await tempDir('audit-log-package-'),
  ));

  // A receipt from the real service, and its published policy.
  service = await startTestService({}, undefined, undefined, { clock });
  const token = await privateTokenVia(service, await createCredentialVia(service, 'space-pkg'));
  jti = String(decodeJwt(token).jti);
  const auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  while ((await sealLog(service.database.db, 500)) > 0);
  await signTreeHeads(service.database.db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
  );
  clock.pinned = Date.now() + 10 * service.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000;
  const receipt = await fetch(`${service.baseUrl}/v1/token/receipt`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(receipt.status).toBe(200);
  await writeFile(path.join(project, 'token.tlog-proof'), await receipt.text());
  const policy = await fetch(`${service.baseUrl}/audit/log/policy`);
  await writeFile(path.join(project, 'policy.txt'), await policy.text());
}, 480_000);

/** The example, run by plain Node in the consumer project. */
const example = (env: Record<string, string>) =>
  run(process.execPath, ['example.mjs'], {
    cwd: project,
    env: { PATH: process.env.PATH, ...env },
    timeout: 60_000,
  }).then(
    (ok) => ({ status: 0, verdict: JSON.parse(ok.stdout) as Record<string, unknown> }),
    (error: { code: number; stdout: string }) => ({
      status: error.code,
      verdict: JSON.parse(error.stdout) as Record<string, unknown>,
    }),
  );

describe('token-authority-audit-log, packed alone (issue 66, item 4)', () => {
  it('packs its build only: no sources, no tests', () => {
    expect(packed).toContain('dist/index.js');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed).toContain('README.md');
    expect(packed.filter((file) => /^(src|test)\//.test(file))).toEqual([]);
  });

  it("runs its README's example in an empty project: a real receipt checks, a tampered one does not", async () => {
    expect(await example({ JTI: jti })).toMatchObject({
      status: 0,
      verdict: { ok: true, proof: 'tlog-proof' },
    });
    expect(await example({ JTI: 'another-token' })).toMatchObject({
      status: 1,
      verdict: { ok: false, reason: 'another_entry' },
    });
    const file = path.join(project, 'token.tlog-proof');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.startsWith('index ')) + 1;
    const flipped = Buffer.from(lines[at]!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    lines[at] = flipped.toString('base64');
    await writeFile(file, lines.join('\n'));
    expect(await example({ JTI: jti })).toMatchObject({
      status: 1,
      verdict: { ok: false, reason: 'not_included' },
    });
  });

  it('runs its programs once token-authority-settings is installed beside it: one usage error, one configuration error', async () => {
    const bin = (name: string, args: string[]) =>
      run(path.join(project, 'node_modules/.bin', name), args, {
        cwd: project,
        timeout: 60_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    // An optional peer: npm never looked the unpublished name up; the programs say it is missing.
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    expect(Object.keys(lock.packages)).not.toContain('node_modules/token-authority-settings');
    const missing = await bin('audit-log-verify-proof', ['--help']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot find package 'token-authority-settings'/);
    const settings = await packedTarball(path.resolve('packages/settings'), path.dirname(project));
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', settings],
      {
        cwd: project,
        timeout: 240_000,
      },
    );
    const unknown = await bin('audit-log-verify-proof', ['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--bogus'[\s\S]*\nUsage: /);
    // A key without the record of what it cosigned: the witness refuses to start (ConfigError).
    const vkey = (await readFile(path.join(project, 'policy.txt'), 'utf8'))
      .split('\n')
      .find((line) => line.startsWith('log '))!
      .split(' ')[1]!;
    const dir = path.join(project, 'witness');
    await mkdir(dir);
    await writeFile(path.join(dir, 'witness.key'), 'not read\n');
    const origin = vkey.slice(0, vkey.indexOf('+'));
    const held = await bin('audit-log-witness', [
      '--name=witness.example',
      `--log=${origin}=${vkey}`,
      `--dir=${dir}`,
      '--port=0',
    ]);
    expect(held).toEqual({
      code: 2,
      stderr: expect.stringMatching(
        /^Invalid configuration: --dir \S+: witness\.key is there without state\.json/,
      ) as string,
    });
    // Its pack waits its turn behind any other test's (consumer-project.ts).
  }, 480_000);

  it('opens one front door: deep paths into the package are closed', async () => {
    expect(await deepImport(project, 'token-authority-audit-log/transparency/merkle.js')).toContain(
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
    );
  });
});
