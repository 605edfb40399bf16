import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Hash } from '#audit-log/transparency/merkle.js';
import { signGrownHeads, type HeadStore } from '#audit-log/tree/head-signing.js';
import type { SignedTreeHead } from '#audit-log/transparency/tree-head.js';
import { spaceTree } from './space-tree.js';
import { spaceTreeSizes } from './space-ranges.js';
import { treeNodes } from './tree-store.js';
import { findTreeHead } from '../prove/tree-heads.js';
import { logTree, logTreeSize } from './log-tree.js';

/** The signed heads the projector hands the witnesses (the package's shape). */
export type { SignedTreeHead };

/**
 * The only signed statements since issue 45: signs the head of every tree that grew since its last
 * signed head (each space's tree, then the log tree), keeps it in merkle_checkpoints (append-only)
 * and, with `dir`, writes its file (the package's signGrownHeads). Returns how many heads it
 * signed. A replica racing us signs the same size; the first stored wins, both are valid.
 */
export function signTreeHeads(
  db: Kysely<Database>,
  sign: (treeId: string, size: number, root: Hash) => string,
  options: {
    readonly dir?: string;
    readonly onTreeHead?: (head: SignedTreeHead) => void;
  } = {},
): Promise<number> {
  return signGrownHeads(postgresHeads(db), sign, options);
}

/** The signed heads as merkle_checkpoints keeps them, over the trees of merkle_nodes. */
function postgresHeads(db: Kysely<Database>): HeadStore {
  return {
    nodes: treeNodes(db),
    async trees() {
      const spaces = (await spaceTreeSizes(db)).map((space) => ({
        tree: spaceTree(db, space.space_id),
        size: space.size,
      }));
      return [...spaces, { tree: logTree(db), size: await logTreeSize(db) }];
    },
    signedSize: async (treeId) => (await findTreeHead(db, treeId))?.size ?? 0,
    async keep({ treeId, size, note }) {
      await db
        .insertInto('merkle_checkpoints')
        .values({ space_id: treeId, tree_size: size, note })
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    },
  };
}
