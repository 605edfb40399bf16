import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzip as gzipCallback } from 'node:zlib';
import { archiveKey, type ArchiveBlock, type ArchiveKey } from './archive-index.js';
import type { ExportLine } from '../export-lines.js';
import { TILE } from '../seal/tree-store.js';

const gzip = promisify(gzipCallback);

/** One file of an archive: a space's events of one partition (the `events-archived` data). */
export interface ArchiveFile {
  readonly space_id: string;
  readonly file: string;
  readonly sha256: string;
  readonly events: number;
  readonly first_sequence: number | null;
  readonly last_sequence: number | null;
}

/** What `manifest.json` in a partition's folder says: the range and every file, with its hash. */
export interface ArchiveManifest {
  readonly partition: string;
  readonly starts_at: string;
  readonly ends_at: string;
  readonly events: number;
  readonly files: readonly ArchiveFile[];
}

/** A space's file of a partition, relative to the archive folder. */
export function archiveFileName(partition: string, spaceId: string): string {
  return `${partition}/${encodeURIComponent(spaceId)}.ndjson.gz`;
}

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

/** An archive file's lines, and whether its bytes still hash to what its manifest says. */
export async function readArchiveFile(
  dir: string,
  entry: ArchiveFile,
): Promise<{ readonly lines: readonly string[]; readonly intact: boolean } | undefined> {
  const bytes = await readFile(path.join(dir, entry.file)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!bytes) return undefined;
  const intact = sha256(bytes) === entry.sha256;
  try {
    return { lines: gunzipSync(bytes).toString('utf8').split('\n').filter(Boolean), intact };
  } catch {
    return { lines: [], intact: false };
  }
}

/** What is wrong with an archive folder as a whole, naming the file. */
export interface ArchiveProblem {
  readonly reason: 'archive_file_missing' | 'archive_file_altered' | 'archive_file_extra';
  readonly file: string;
}

/**
 * Every manifest under `dir` (one per archived partition), with the files of the folder that no
 * manifest names (`extra`).
 */
export async function readManifests(dir: string): Promise<{
  readonly manifests: readonly ArchiveManifest[];
  readonly extra: readonly string[];
}> {
  const manifests: ArchiveManifest[] = [];
  const extra: string[] = [];
  for (const folder of (await readdir(dir, { withFileTypes: true })).filter((d) =>
    d.isDirectory(),
  )) {
    const names = await readdir(path.join(dir, folder.name));
    const manifest = names.includes('manifest.json')
      ? (JSON.parse(
          await readFile(path.join(dir, folder.name, 'manifest.json'), 'utf8'),
        ) as ArchiveManifest)
      : undefined;
    if (manifest) manifests.push(manifest);
    const named = new Set((manifest?.files ?? []).map((file) => file.file));
    for (const name of names) {
      const file = `${folder.name}/${name}`;
      if (name !== 'manifest.json' && !named.has(file)) extra.push(file);
    }
  }
  manifests.sort((a, b) => a.starts_at.localeCompare(b.starts_at));
  return { manifests, extra };
}
