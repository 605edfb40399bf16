import { createHash } from 'node:crypto';
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { archiveKey, type ArchiveBlock, type ArchiveKey } from './blocks.js';
import type { ExportLine } from '../export-lines.js';
import { archiveFileName, type ArchiveFile, type ArchiveManifest } from '../archive-folder.js';
import { TILE } from '../transparency/frontier.js';

const gzip = promisify(gzipCallback);

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A written archive file: its manifest entry, and its index (migration 027). */
export interface WrittenArchiveFile {
  readonly entry: ArchiveFile;
  readonly blocks: readonly ArchiveBlock[];
  readonly keys: readonly ArchiveKey[];
}

/**
 * Writes `lines` (a space's export of the partition) as gzipped NDJSON, created exclusively: an
 * archive file is never rewritten. The file is a series of gzip members, a new one at each tile's
 * first event, so one tile's events are one member's bytes (`gunzip` reads it as one stream).
 * Returns what the manifest records of it, and the index: each member's place and hash, and the
 * key of each event id and of each stream's first event.
 */
export async function writeArchiveFile(
  dir: string,
  partition: string,
  spaceId: string,
  lines: AsyncIterable<ExportLine>,
): Promise<WrittenArchiveFile> {
  const file = archiveFileName(partition, spaceId);
  await mkdir(path.join(dir, partition), { recursive: true, mode: 0o700 });
  const out = await open(path.join(dir, file), 'wx', 0o444);
  const whole = createHash('sha256');
  const blocks: ArchiveBlock[] = [];
  const keys: ArchiveKey[] = [];
  let events = 0;
  let first: number | null = null;
  let last: number | null = null;
  let pending: string[] = [];
  let blockFirst: number | null = null;
  let offset = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const bytes = await gzip(pending.join(''));
    await out.writeFile(bytes);
    whole.update(bytes);
    if (blockFirst !== null && last !== null) {
      blocks.push({
        first_sequence: blockFirst,
        last_sequence: last,
        byte_offset: offset,
        byte_length: bytes.length,
        sha256: sha256(bytes),
      });
    }
    offset += bytes.length;
    pending = [];
    blockFirst = null;
  };
  try {
    for await (const line of lines) {
      if (line.type === 'event') {
        if ((line.sequence - 1) % TILE === 0 && blockFirst !== null) await flush();
        events += 1;
        first ??= line.sequence;
        blockFirst ??= line.sequence;
        last = line.sequence;
        keys.push({ key: archiveKey({ eventId: String(line.event.event_id) }), sequence: last });
        if (line.event.stream_position === 1) {
          keys.push({
            key: archiveKey({ streamId: String(line.event.stream_id) }),
            sequence: last,
          });
        }
      }
      pending.push(`${JSON.stringify(line)}\n`);
    }
    await flush();
  } finally {
    await out.close();
  }
  return {
    entry: {
      space_id: spaceId,
      file,
      sha256: whole.digest('hex'),
      events,
      first_sequence: first,
      last_sequence: last,
    },
    blocks,
    keys,
  };
}

/** Writes a partition's manifest.json (exclusively) and returns its SHA-256. */
export async function writeManifest(dir: string, manifest: ArchiveManifest): Promise<string> {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  // A partition that held no events has no file to have made its folder.
  await mkdir(path.join(dir, manifest.partition), { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, manifest.partition, 'manifest.json'), text, {
    flag: 'wx',
    mode: 0o444,
  });
  return sha256(text);
}
