import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { memoryTree, type Hash, type TreeHashes } from '#audit-log/transparency/merkle.js';
import { TILE, TILE_LEVEL } from '#audit-log/transparency/frontier.js';

/**
 * How the audit trail's Merkle trees (each space's, and the whole log's) are kept: perfect
 * subtrees of 2^TILE_LEVEL leaves and more are rows of merkle_nodes, written by the sealer as it
 * completes them; anything smaller is recomputed from the events of one tile, so a proof costs
 * O(log n) rows and at most two tiles of events. (TILE: the package's.)
 */
export { TILE };

/** One tree: its id in merkle_nodes (a space id, or LOG_TREE) and how to read its leaves. */
export interface TreeSource {
  readonly id: string;
  /** The leaf hashes of leaves `from` through `to` (1-based, inclusive), in order. */
  leaves(from: number, to: number): Promise<Hash[]>;
}

/**
 * Leaves a tree needs but the database no longer holds (their partition was archived, or they
 * were never sealed): a tree is never computed over fewer leaves than it has.
 */
export class TreeLeavesMissing extends Error {
  constructor(treeId: string, from: number, to: number, found: number, why = 'archived?') {
    super(`tree "${treeId}": leaves ${from}..${to} asked, ${found} found (${why})`);
    this.name = 'TreeLeavesMissing';
  }
}

/** Leaves `from` through `to` of `tree`, all of them, or TreeLeavesMissing. */
export async function leavesOf(tree: TreeSource, from: number, to: number): Promise<Hash[]> {
  const leaves = await tree.leaves(from, to);
  if (leaves.length !== Math.max(0, to - from + 1)) {
    throw new TreeLeavesMissing(tree.id, from, to, leaves.length);
  }
  return leaves;
}

/** Stored nodes of a tree, by "level/index". */
export async function storedNodes(
  db: Kysely<Database>,
  treeId: string,
  wanted: readonly { level: number; index: number }[],
): Promise<Map<string, Hash>> {
  if (wanted.length === 0) return new Map();
  // One index probe per node asked for (a LATERAL lookup), never a scan of the tree's nodes.
  const { rows } = await sql<{ level: number; index: string; hash: Buffer }>`
    SELECT w.level, w.index, m.hash
    FROM unnest(${wanted.map((w) => w.level)}::smallint[], ${wanted.map((w) => w.index)}::bigint[])
      AS w(level, index)
    CROSS JOIN LATERAL (
      SELECT hash FROM merkle_nodes n
      WHERE n.space_id = ${treeId} AND n.level = w.level AND n.index = w.index
    ) m`.execute(db);
  return new Map(rows.map((row) => [`${row.level}/${row.index}`, row.hash]));
}

/**
 * Runs `compute` (a proof, a root) over a tree of `size` leaves, fetching first exactly the nodes
 * it asks for: a dry run records them, stored ones are read in one query, the rest come from the
 * leaves of their tiles.
 */
export async function overTree<T>(
  db: Kysely<Database>,
  tree: TreeSource,
  size: number,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  const wanted: { level: number; index: number }[] = [];
  compute({
    size,
    perfect: (level, index) => {
      wanted.push({ level, index });
      return Buffer.alloc(32);
    },
  });
  const stored = await storedNodes(
    db,
    tree.id,
    wanted.filter((w) => w.level >= TILE_LEVEL),
  );
  const tiles = new Map<number, TreeHashes>();
  for (const { level, index } of wanted.filter((w) => w.level < TILE_LEVEL)) {
    const tile = Math.floor((index * 2 ** level) / TILE);
    if (tiles.has(tile)) continue;
    const from = tile * TILE + 1;
    tiles.set(tile, memoryTree(await leavesOf(tree, from, Math.min(from + TILE - 1, size))));
  }
  return compute({
    size,
    perfect: (level, index) => {
      if (level >= TILE_LEVEL) {
        const hash = stored.get(`${level}/${index}`);
        if (!hash) throw new Error(`tree "${tree.id}": node ${level}/${index} is missing`);
        return hash;
      }
      const tile = Math.floor((index * 2 ** level) / TILE);
      return tiles.get(tile)!.perfect(level, index - tile * 2 ** (TILE_LEVEL - level));
    },
  });
}
