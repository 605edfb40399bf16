import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

// A tree's origin, its verifier key and its signed head are the package's (one version).
export { signTreeHead, treeOrigin, treeVerifierKey } from '#audit-log/transparency/tree-head.js';

/** A signed tree head: which tree (a space id, or LOG_TREE), its size, the signed note. */
export interface SignedTreeHead {
  readonly treeId: string;
  readonly size: number;
  readonly note: string;
}

/** Keeps a signed tree head (a replica that signed the same size first wins; both are valid). */
export async function storeTreeHead(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  note: string,
): Promise<void> {
  await db
    .insertInto('merkle_checkpoints')
    .values({ space_id: spaceId, tree_size: size, note })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}
