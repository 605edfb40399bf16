import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Every `npm run` command of ours: the package.json scripts that run a TypeScript entry point.
const scripts = Object.entries(
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
)
  .map(([name, command]) => ({ name, file: /^tsx (\S+\.ts)$/.exec(command)?.[1] }))
  .filter((script): script is { name: string; file: string } => script.file !== undefined);

describe('every command answers --help', () => {
  it('finds the commands', () => {
    expect(scripts.map((script) => script.name)).toEqual(
      expect.arrayContaining(['start', 'api', 'projector', 'bench', 'chaos', 'verify-export']),
    );
  });

  it.each(scripts)('npm run $name -- --help prints its usage and exits 0', async ({ file }) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.resolve(file), '--help'],
      // No database and no settings: --help must not need either.
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 30_000 },
    );
    expect(stdout).toMatch(/^Usage: npm (run \S+|start)/m);
  });
});
