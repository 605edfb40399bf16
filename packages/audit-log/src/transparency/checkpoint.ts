import type { Hash } from './merkle.js';

/**
 * A tree head in the C2SP checkpoint form (https://c2sp.org/tlog-checkpoint): the log's origin,
 * its size and its root hash, one per line; signed as a note (signed-note.ts) by the log and by
 * whichever witnesses cosign it.
 */
export interface Checkpoint {
  /** Names the log, e.g. `token-authority.example/space/shop`: one origin, one tree. */
  readonly origin: string;
  readonly size: number;
  readonly root: Hash;
  /** Lines after the root, passed through as written. */
  readonly extensions?: readonly string[];
}

/** The checkpoint's text, as its signatures sign it. */
export function checkpointText(checkpoint: Checkpoint): string {
  if (!checkpoint.origin || /\n/.test(checkpoint.origin))
    throw new Error('a checkpoint origin is one line');
  if (!Number.isSafeInteger(checkpoint.size) || checkpoint.size < 0)
    throw new Error('bad tree size');
  if (checkpoint.root.length !== 32) throw new Error('a checkpoint root is 32 bytes');
  const lines = [
    checkpoint.origin,
    String(checkpoint.size),
    checkpoint.root.toString('base64'),
    ...(checkpoint.extensions ?? []),
  ];
  return `${lines.join('\n')}\n`;
}

/** Parses a checkpoint's text; throws when it is not one (a size with leading zeros included). */
export function parseCheckpointText(text: string): Checkpoint {
  const lines = text.split('\n');
  const [origin, size, root] = lines;
  const hash = Buffer.from(root ?? '', 'base64');
  if (
    !text.endsWith('\n') ||
    !origin ||
    !/^(0|[1-9][0-9]*)$/.test(size ?? '') ||
    hash.length !== 32 ||
    hash.toString('base64') !== root
  ) {
    throw new Error('not a checkpoint: origin, decimal size and base64 root, a line each');
  }
  const extensions = lines.slice(3, -1);
  return {
    origin,
    size: Number(size),
    root: hash,
    ...(extensions.length > 0 ? { extensions } : {}),
  };
}
