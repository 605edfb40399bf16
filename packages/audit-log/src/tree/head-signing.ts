import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { headFolder, treeHeadFileName } from '../head-files.js';
import type { Hash } from '../transparency/merkle.js';
import type { SignedTreeHead } from '../transparency/tree-head.js';
import type { NodeStore } from './tiled-tree.js';
import { treeRootAt } from './tree-growth.js';
import { unlessLeavesMissing, type TreeSource } from './tree-source.js';

/** Where a log keeps its signed heads, and what it signs them over. */
export interface HeadStore {
  /** The trees there are and their sizes now (the log tree last). */
  trees(): Promise<Array<{ readonly tree: TreeSource; readonly size: number }>>;
  /** The size of the tree's latest signed head (0 when none). */
  signedSize(treeId: string): Promise<number>;
  /** Keeps a signed head (a replica that signed the same size first wins; both are valid). */
  keep(head: SignedTreeHead): Promise<void>;
  /** The trees' stored nodes, for the roots. */
  readonly nodes: NodeStore;
}

/**
 * Signs the head of every tree that grew since its last signed head as a C2SP checkpoint note
 * (`sign`), keeps it and, with `dir`, writes it as a file that is never rewritten (created
 * exclusively, mode 444), the stand-in for write-once storage. Returns how many heads it signed. A
 * tree whose unbuilt history is archived (tree-growth.ts) is left unsigned.
 */
export async function signGrownHeads(
  store: HeadStore,
  sign: (treeId: string, size: number, root: Hash) => string,
  options: {
    readonly dir?: string;
    /** Told of each signed tree head this call kept (the witnesses are sent them). */
    readonly onTreeHead?: (head: SignedTreeHead) => void;
  } = {},
): Promise<number> {
  let signed = 0;
  for (const { tree, size } of await store.trees()) {
    if (size <= (await store.signedSize(tree.id))) continue;
    const root = await unlessLeavesMissing(treeRootAt(store.nodes, tree, size));
    if (!root) continue;
    const head = { treeId: tree.id, size, note: sign(tree.id, size, root) };
    await store.keep(head);
    options.onTreeHead?.(head);
    signed += 1;
    if (options.dir) {
      const folder = headFolder(options.dir, tree.id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeOnce(path.join(folder, treeHeadFileName(size)), head.note);
    }
  }
  return signed;
}

/** A file written once and never rewritten (mode 444): an existing one is left as it is. */
async function writeOnce(file: string, content: string): Promise<void> {
  await writeFile(file, content, { flag: 'wx', mode: 0o444 }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
}
