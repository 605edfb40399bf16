import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Hash } from '#audit-log/transparency/merkle.js';
import { signGrownHeads, type HeadStore } from '#audit-log/tree/head-signing.js';
import { spaceTree } from './space-tree.js';
import { spaceTreeSizes } from './space-ranges.js';
import { treeNodes } from './tree-store.js';
import { findTreeHead } from '../prove/tree-heads.js';
import { logTree, logTreeSize } from './log-tree.js';

/** Signs every grown tree's head, into merkle_checkpoints; racing replicas both valid. */
export function signTreeHeads(
  db: Kysely<Database>,
  sign: (treeId: string, size: number, root: Hash) => string,
  options: Parameters<typeof signGrownHeads>[2] = {},
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
