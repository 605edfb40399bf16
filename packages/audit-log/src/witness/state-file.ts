import { open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from 'token-authority-settings';
import {
  MAX_NOTE_BYTES,
  MAX_ORIGIN_BYTES,
  memoryWitnessState,
  type TreeHead,
  type WitnessMonitoring,
  type WitnessState,
} from '../transparency/witness.js';

/** state.json: each origin's latest cosigned head, its size and base64 root. */
const StoredState = z.record(
  z.string().refine((origin) => origin.length > 0 && Buffer.byteLength(origin) <= MAX_ORIGIN_BYTES),
  z.object({
    size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    root: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
    // A note past the bound (or unreadable) is dropped, never the whole memory with it.
    note: z
      .string()
      .refine((note) => Buffer.byteLength(note) <= MAX_NOTE_BYTES)
      .optional()
      .catch(undefined),
  }),
);

/**
 * Writes `text` to `file` so that it survives a power cut once this resolves: a temporary file
 * written and fsynced, renamed over `file`, then the folder fsynced (the rename is an entry of the
 * folder; without it the old file can come back).
 */
export async function writeFileDurably(file: string, text: string): Promise<void> {
  const draft = `${file}.tmp`;
  const handle = await open(draft, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(draft, file);
  const folder = await open(path.dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

const stored = (heads: Iterable<[string, TreeHead]>) =>
  JSON.stringify(
    Object.fromEntries(
      [...heads].map(([origin, head]) => [
        origin,
        {
          size: head.size,
          root: head.root.toString('base64'),
          ...(head.note === undefined ? {} : { note: head.note }),
        },
      ]),
    ),
  );

/** A new witness's empty memory, written durably (before its key exists). */
export const createStateFile = (file: string) => writeFileDurably(file, stored([]));

/**
 * The witness's memory from `file`, which must exist and parse: a missing, unreadable or damaged
 * file is a ConfigError, never an empty memory (an empty memory cosigns a fork, and its next write
 * would erase every other log's head). Each advance is serialised, rewrites the whole file
 * durably, and is answered only after that; at most `maxOrigins` origins are kept.
 */
export async function openStateFile(
  file: string,
  maxOrigins: number,
): Promise<WitnessState & WitnessMonitoring & { origins(): number }> {
  let parsed: z.infer<typeof StoredState>;
  try {
    parsed = StoredState.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    const why = error instanceof z.ZodError ? 'not a witness state file' : (error as Error).message;
    throw new ConfigError([`--dir: the witness state ${file} cannot be used: ${why}`]);
  }
  const heads = new Map<string, TreeHead>(
    Object.entries(parsed).map(([origin, head]) => [
      origin,
      {
        size: head.size,
        root: Buffer.from(head.root, 'base64'),
        ...(head.note === undefined ? {} : { note: head.note }),
      },
    ]),
  );
  const memory = memoryWitnessState(heads, maxOrigins);
  let tail: Promise<unknown> = Promise.resolve();
  return {
    latest: memory.latest,
    byOriginHash: memory.byOriginHash,
    origins: () => memory.entries().length,
    // Serialised: the check, the write and the update are one step. The update is made in a copy
    // first, so a failed write leaves the memory as the file is.
    advance: (origin, expected, next) => {
      const run = tail.then(async () => {
        const trial = memoryWitnessState(memory.entries(), maxOrigins);
        const outcome = await trial.advance(origin, expected, next);
        if (outcome !== 'advanced') return outcome;
        await writeFileDurably(file, stored(trial.entries()));
        return memory.advance(origin, expected, next);
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
}
