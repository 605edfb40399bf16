import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { ArchivedBlock } from './blocks.js';
import type { EventLine } from '../export-lines.js';

/** An event line of an archive file. */
export type ArchivedEventLine = EventLine;

/** Why a member could not be read: its file is gone, its bytes changed, or it is beyond the bounds. */
export type BlockProblem = 'missing' | 'altered' | 'too_large';

/**
 * Bounds on what one read holds in memory, whatever a file says: a line (an event is a few KB)
 * and the lines kept. A member is one tile (256 events), far below both.
 */
export const BLOCK_READ_LIMITS = { lineBytes: 4 * 1024 * 1024, keptBytes: 32 * 1024 * 1024 };

class TooLarge extends Error {}

/**
 * The event lines of one member of an archive file that `keep` selects, read as a stream: the
 * member's bytes only (by offset), inflated by zlib off the event loop, split line by line, held
 * within BLOCK_READ_LIMITS. They are returned only if the bytes hash to the member's recorded
 * SHA-256; otherwise, or when the file is gone, the problem.
 */
export async function readArchiveBlock(
  dir: string,
  block: ArchivedBlock,
  keep: (line: ArchivedEventLine) => boolean,
  limits = BLOCK_READ_LIMITS,
): Promise<ArchivedEventLine[] | BlockProblem> {
  const hash = createHash('sha256');
  let bytesRead = 0;
  const kept: ArchivedEventLine[] = [];
  let keptBytes = 0;
  const take = (text: string) => {
    // Seals, checkpoints and heads share the member; only events are leaves.
    if (text.length > limits.lineBytes) throw new TooLarge();
    if (!text.startsWith('{"type":"event"')) return;
    const line = JSON.parse(text) as ArchivedEventLine;
    if (!keep(line)) return;
    keptBytes += text.length;
    if (keptBytes > limits.keptBytes) throw new TooLarge();
    kept.push(line);
  };
  try {
    await pipeline(
      createReadStream(path.join(dir, block.file), {
        start: block.byte_offset,
        end: block.byte_offset + block.byte_length - 1,
      }),
      async function* hashed(chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          bytesRead += chunk.length;
          yield chunk;
        }
      },
      createGunzip(),
      async (inflated: AsyncIterable<Buffer>) => {
        const decoder = new StringDecoder('utf8');
        let rest = '';
        for await (const chunk of inflated) {
          const parts = (rest + decoder.write(chunk)).split('\n');
          rest = parts.pop()!;
          if (rest.length > limits.lineBytes) throw new TooLarge();
          for (const text of parts) take(text);
        }
        take(rest + decoder.end());
      },
    );
  } catch (error) {
    if (error instanceof TooLarge) return 'too_large';
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    // A truncated or corrupted member fails to inflate or to parse: it was altered.
    return 'altered';
  }
  if (bytesRead !== block.byte_length || hash.digest('hex') !== block.sha256) return 'altered';
  return kept;
}
