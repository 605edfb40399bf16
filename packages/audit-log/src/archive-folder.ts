import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The archive folder's layout (ARCHIVE_DIR): one folder per archived partition, its
 * `manifest.json` and one gzipped NDJSON file per space, each line an export line
 * (export-lines.ts). Written by archive/, read back by the archiver, the proofs and the checks.
 */

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
