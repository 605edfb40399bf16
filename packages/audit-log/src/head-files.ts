import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where a tree's signed head files are written (token-authority's tree-head-signing.ts; JWS checkpoint files before
 * issue 45): one never-rewritten file each. The log tree's heads (tree id '') go to `_log`, a name
 * no space id encodes to.
 */
export function headFolder(dir: string, spaceId: string): string {
  return path.join(dir, spaceId === '' ? '_log' : encodeURIComponent(spaceId));
}

/** The name of JWS checkpoint `number`'s file in its space's folder (written before issue 45). */
export function jwsCheckpointFileName(number: number): string {
  return `${String(number).padStart(10, '0')}.jws`;
}

/** The name of the file of a tree's signed head of `size` leaves (a C2SP checkpoint note). */
export function treeHeadFileName(size: number): string {
  return `${String(size).padStart(12, '0')}.checkpoint`;
}

/** A space's JWS checkpoint files, by checkpoint number (empty when the folder does not exist). */
export async function readJwsCheckpointFiles(
  dir: string,
  spaceId: string,
): Promise<ReadonlyMap<number, string>> {
  const folder = headFolder(dir, spaceId);
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const files = new Map<number, string>();
  for (const name of names) {
    const match = /^(\d{10})\.jws$/.exec(name);
    if (!match) continue;
    files.set(Number(match[1]), (await readFile(path.join(folder, name), 'utf8')).trim());
  }
  return files;
}

/** A tree's signed head files (C2SP notes, as signed), by tree size; empty without the folder. */
export async function readTreeHeadFiles(
  dir: string,
  treeId: string,
): Promise<ReadonlyMap<number, string>> {
  const folder = headFolder(dir, treeId);
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const files = new Map<number, string>();
  for (const name of names) {
    const match = /^(\d{12})\.checkpoint$/.exec(name);
    if (match) files.set(Number(match[1]), await readFile(path.join(folder, name), 'utf8'));
  }
  return files;
}
