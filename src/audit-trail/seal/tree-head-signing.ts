import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { headFolder, treeHeadFileName } from '#audit-log/head-files.js';
import { spaceTree } from './space-tree.js';
import { spaceTreeSizes } from './space-ranges.js';
import { treeRootAt } from './tree-growth.js';
import { TreeLeavesMissing, type TreeSource } from './tree-store.js';
import { storeTreeHead, type SignedTreeHead } from './tree-heads.js';
import { findTreeHead } from '../prove/tree-heads.js';
import { logTree, logTreeSize } from './log-tree.js';
import type { Hash } from '#audit-log/transparency/merkle.js';

/**
 * The only signed statements since issue 45: signs the head of every tree that grew since its last
 * signed head (each space's tree, then the log tree) as a C2SP checkpoint note, stores it
 * (merkle_checkpoints, append-only) and, with `dir`, writes it as a file that is never rewritten
 * (created exclusively, mode 444), the stand-in for write-once storage. Returns how many heads it
 * signed. A replica racing us signs the same size; the first stored wins, both are valid.
 */
export async function signTreeHeads(
  db: Kysely<Database>,
  sign: (treeId: string, size: number, root: Hash) => string,
  options: {
    readonly dir?: string;
    /** Told of each signed tree head this call stored (the witnesses are sent them). */
    readonly onTreeHead?: (head: SignedTreeHead) => void;
  } = {},
): Promise<number> {
  let signed = 0;
  const trees: Array<{ tree: TreeSource; size: number }> = (await spaceTreeSizes(db)).map(
    (space) => ({ tree: spaceTree(db, space.space_id), size: space.size }),
  );
  trees.push({ tree: logTree(db), size: await logTreeSize(db) });
  for (const { tree, size } of trees) {
    if (size <= ((await findTreeHead(db, tree.id))?.size ?? 0)) continue;
    const root = await rootIfBuilt(treeRootAt(db, tree, size));
    if (!root) continue;
    const note = sign(tree.id, size, root);
    await storeTreeHead(db, tree.id, size, note);
    options.onTreeHead?.({ treeId: tree.id, size, note });
    signed += 1;
    if (options.dir) {
      const folder = headFolder(options.dir, tree.id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeOnce(path.join(folder, treeHeadFileName(size)), note);
    }
  }
  return signed;
}

/** A tree's root, or undefined for a tree whose unbuilt history is archived (tree-growth.ts). */
function rootIfBuilt(root: Promise<Hash>): Promise<Hash | undefined> {
  return root.catch((error: unknown) => {
    if (error instanceof TreeLeavesMissing) return undefined;
    throw error;
  });
}

/** A file written once and never rewritten (mode 444): an existing one is left as it is. */
async function writeOnce(file: string, content: string): Promise<void> {
  await writeFile(file, content, { flag: 'wx', mode: 0o444 }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
}
