import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const pending: (() => Promise<void>)[] = [];
// Registered when a test file first imports this module, during collection: an afterAll called
// inside a running beforeAll is dropped without a word, and what it would have undone leaked.
afterAll(async () => {
  for (const undo of pending.splice(0).reverse()) await undo();
});

/**
 * Runs `undo` after the current test file, in reverse order of registration, wherever it is
 * called from — module level, a beforeAll, a test.
 */
export function afterFile(undo: () => Promise<unknown> | unknown): void {
  pending.push(async () => {
    await undo();
  });
}

/** A fresh folder under the system's temporary one, removed after the test file. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  afterFile(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
