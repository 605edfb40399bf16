import type * as fsPromises from 'node:fs/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Every file operation the state file makes, in order, to see that it fsyncs before answering.
const calls: string[] = [];
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  const name = (file: unknown) => path.basename(String(file));
  return {
    ...actual,
    open: async (file: string, flags?: string, mode?: number) => {
      const handle = await actual.open(file, flags, mode);
      calls.push(`open ${name(file)} ${flags}`);
      const sync = handle.sync.bind(handle);
      return Object.assign(handle, {
        sync: async () => {
          await sync();
          calls.push(`fsync ${name(file)}`);
        },
      });
    },
    rename: async (from: string, to: string) => {
      await actual.rename(from, to);
      calls.push(`rename ${name(from)} ${name(to)}`);
    },
  };
});

const { createStateFile, openStateFile } = await import('../src/witness/state-file.js');
const dir = await mkdtemp(path.join(tmpdir(), 'witness-state-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const head = (size: number) => ({ size, root: Buffer.alloc(32, size) });

describe("the witness's state file", () => {
  it('is on disk, the file and its folder fsynced, before an advance answers', async () => {
    const file = path.join(dir, 'state.json');
    await createStateFile(file);
    const state = await openStateFile(file, 10);
    calls.length = 0;
    expect(await state.advance('log.test/a', undefined, head(5))).toBe('advanced');
    expect(calls).toEqual([
      'open state.json.tmp w',
      'fsync state.json.tmp',
      'rename state.json.tmp state.json',
      `open ${path.basename(dir)} r`,
      `fsync ${path.basename(dir)}`,
    ]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      'log.test/a': { size: 5, root: Buffer.alloc(32, 5).toString('base64') },
    });
    // A second process reading it finds what the first answered for.
    expect((await (await openStateFile(file, 10)).latest('log.test/a'))?.size).toBe(5);
  });

  it('advances only from the head it holds, and keeps at most maxOrigins origins', async () => {
    const file = path.join(dir, 'bounded.json');
    await createStateFile(file);
    const state = await openStateFile(file, 1);
    expect(await state.advance('log.test/a', undefined, head(5))).toBe('advanced');
    expect(await state.advance('log.test/a', head(4), head(6))).toBe('moved');
    expect(await state.advance('log.test/a', { size: 5, root: Buffer.alloc(32) }, head(6))).toBe(
      'moved',
    );
    expect(await state.advance('log.test/b', undefined, head(1))).toBe('full');
    expect(await state.advance('log.test/a', head(5), head(6))).toBe('advanced');
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')) as object)).toEqual(['log.test/a']);
  });

  it('is never taken for empty when it is missing', async () => {
    await expect(openStateFile(path.join(dir, 'missing.json'), 10)).rejects.toThrow(
      /witness state .* cannot be used: ENOENT/,
    );
  });
});
