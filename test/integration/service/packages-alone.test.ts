import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/after-file.js';
import { deepImport, packedPackageProject, promisedLine } from '../../support/consumer-project.js';

/**
 * Issue 66, item 4: packages a user could take. Each one here, packed alone, installs into an
 * empty project; its README's example runs there as written and prints the line the README says
 * it prints; a path past its front door is closed. (audit-log and verifier, whose examples need a
 * receipt or the running service: test/integration/audit/audit-log-package.test.ts and
 * test/integration/tokens/verifier-package.test.ts.)
 */
const run = promisify(execFile);
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
};
// `alongside`: what its README says to install with it (pg: the launcher hands back a URL only;
// zod: the settings' peer, at the version the service tests). `scripts`: its install needs them
// (the platform package's postinstall restores the binaries' library links).
const PACKAGES: {
  dir: string;
  deep: string;
  alongside?: Record<string, string>;
  scripts?: boolean;
}[] = [
  { dir: 'rate-limit', deep: 'sliding-window.js' },
  { dir: 'oauth-authorize', deep: 'pkce.js' },
  { dir: 'outbound', deep: 'target-rules.js' },
  { dir: 'settings', deep: 'read-settings.js', alongside: { zod: dependencies.zod! } },
  { dir: 'event-log', deep: 'insert-events.js' },
  {
    dir: 'embedded-postgres',
    deep: 'embedded-postgres.js',
    alongside: { pg: dependencies.pg! },
    scripts: true,
  },
];

describe.each(PACKAGES)('packages/$dir, packed alone', ({ dir, deep, alongside, scripts }) => {
  it("installs into an empty project, runs its README's example there, opens only its front door", async () => {
    const { project, files, example } = await packedPackageProject(
      path.resolve('packages', dir),
      await tempDir(`package-${dir}-`),
      alongside,
      { scripts },
    );
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files.filter((file) => /^(src|test)\//.test(file))).toEqual([]);

    const promised = promisedLine(example);
    expect(promised, 'the example ends with "// prints <line>"').toBeDefined();
    const { stdout } = await run(process.execPath, ['example.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH },
      timeout: 120_000,
    });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(promised!));

    const manifest = readFileSync(path.join('packages', dir, 'package.json'), 'utf8');
    const { name } = JSON.parse(manifest) as { name: string };
    expect(await deepImport(project, `${name}/${deep}`)).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 300_000);
});
