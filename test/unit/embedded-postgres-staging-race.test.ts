import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Another stager's moves land where a real race would put them: just before one of ours.
const before = vi.hoisted(() => ({
  rename: undefined as ((from: string, to: string) => Promise<void>) | undefined,
}));
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof fs>();
  return {
    ...real,
    rename: async (from: string, to: string) => {
      await before.rename?.(from, to);
      return real.rename(from, to);
    },
  };
});
// The postgres user cannot reach the binaries: they are staged, as root would stage them.
vi.mock('../../packages/embedded-postgres/src/os-user.js', () => ({ reachable: () => false }));
const { binariesFor } = await import('#embedded-postgres/binaries.js');

const roots: string[] = [];
afterEach(async () => {
  before.rename = undefined;
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'staging-race-'));
  roots.push(dir);
  return dir;
}

/** A finished copy at `dir`, told apart by `mark`. */
async function finishedCopy(dir: string, mark: string): Promise<void> {
  await fs.mkdir(path.join(dir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(dir, 'bin', 'postgres'), mark);
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const someone = { uid: 65534, gid: 65534 };

async function setUp() {
  const root = await tempDir();
  const source = await tempDir();
  await finishedCopy(path.join(source, 'native'), 'ours');
  const staged = path.join(root, 'bin-18.4.0');
  await fs.mkdir(path.join(staged, 'share'), { recursive: true }); // unfinished: no bin/postgres
  const binaries = { nativeDir: path.join(source, 'native'), version: '18.4.0' };
  return { root, staged, stage: () => binariesFor(binaries, someone, root, silent) };
}

const mark = (dir: string) => fs.readFile(path.join(dir, 'bin', 'postgres'), 'utf8');

describe('staged Postgres binaries: stagers racing for the same folder', () => {
  it('puts back a finished copy another stager placed between our check and our move aside', async () => {
    const { root, staged, stage } = await setUp();
    before.rename = async (from, to) => {
      if (from !== staged || !to.includes('.stale-')) return;
      before.rename = undefined;
      // The other stager moved the leftover aside and put its finished copy in place.
      await fs.rm(staged, { recursive: true });
      await finishedCopy(staged, 'theirs');
    };

    await expect(stage()).resolves.toBe(staged);

    expect(await mark(staged)).toBe('theirs');
    expect(await fs.readdir(root)).toEqual(['bin-18.4.0']);
  });

  it('keeps a finished copy it moved aside when a third stager took the place meanwhile', async () => {
    const { root, staged, stage } = await setUp();
    before.rename = async (from, to) => {
      if (from === staged && to.includes('.stale-')) {
        await fs.rm(staged, { recursive: true });
        await finishedCopy(staged, 'second');
      } else if (to === staged && from.includes('.stale-')) {
        before.rename = undefined;
        await finishedCopy(staged, 'third');
      }
    };

    await expect(stage()).resolves.toBe(staged);

    expect(await mark(staged)).toBe('third');
    const beside = (await fs.readdir(root)).filter((name) => name !== 'bin-18.4.0');
    expect(beside).toHaveLength(1);
    expect(beside[0]).toMatch(/^bin-18\.4\.0\.stale-\d+-\w+0$/);
    expect(await mark(path.join(root, beside[0]!))).toBe('second');
    expect(existsSync(path.join(root, beside[0]!, 'bin', 'postgres'))).toBe(true);
  });
});
