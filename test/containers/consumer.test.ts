import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { promisedLine, readmeExample } from '../support/consumer-project.js';
import { installedAsDocumented } from '../support/testcontainers-package.js';
import { runCommand } from './support/compose.js';

const work = await mkdtemp(path.join(tmpdir(), 'token-authority-testcontainers-'));
afterAll(() => rm(work, { recursive: true, force: true }));
const userTest = 'test/containers/consumer/token-authority.test.js';
// One install for both tests: the docs' line as written (not the lockfile's versions).
let installed: Promise<{ project: string }> | undefined;
const consumer = () => (installed ??= installedAsDocumented(work));

describe('token-authority-testcontainers, from its packed tarball in a plain JavaScript project', () => {
  it('docs/testing.md shows the very test this project runs', async () => {
    const docs = await readFile('docs/testing.md', 'utf8');
    expect(docs).toContain((await readFile(userTest, 'utf8')).trim());
  });

  it("installed by the docs' own line, starts Postgres and the service's image on one network, and a token from it verifies against its JWKS", async () => {
    // The docs' line as written (not the lockfile's versions): what a new user gets is tested.
    const { project } = await consumer();
    await copyFile(userTest, path.join(project, 'token-authority.test.js'));
    const output = await runCommand('npx', ['vitest', 'run', '--reporter=verbose'], {
      cwd: project,
      timeoutMs: 240_000,
      env: { NO_COLOR: '1' },
    });
    const plain = stripVTControlCharacters(output);
    expect(plain).toMatch(/✓ .*a private token from the real service verifies against its JWKS/);
    expect(plain).toMatch(/Tests +1 passed/);
  }, 420_000);

  it("runs the package README's one example as written and prints the line it says", async () => {
    const example = await readmeExample('packages/testcontainers');
    const promised = promisedLine(example);
    expect(promised, 'the example ends with "// prints <line>"').toBeDefined();
    const { project } = await consumer();
    await writeFile(path.join(project, 'example.mjs'), example);
    const stdout = await runCommand(process.execPath, ['example.mjs'], {
      cwd: project,
      timeoutMs: 240_000,
    });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(promised!));
  }, 420_000);
});
