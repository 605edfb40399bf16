import { memoryTree, type Hash, type TreeHashes } from '../transparency/merkle.js';
import { TILE, TILE_LEVEL, type StoredNode } from '../transparency/frontier.js';
import { leavesOf, type TreeSource } from './tree-source.js';

/**
 * How a log keeps its Merkle trees (Tessera's tiles, in rows): perfect subtrees of 2^TILE_LEVEL
 * leaves and more are stored as they complete; anything smaller is recomputed from the leaves of
 * one tile, so a proof costs O(log n) stored nodes and at most two tiles of leaves. The storage is
 * the caller's, behind NodeStore.
 */

/** Where a log keeps its trees' stored nodes (a database table, a tile folder, memory). */
export interface NodeStore {
  /** The stored nodes of `treeId` among `wanted`, by "level/index"; absent ones left out. */
  nodes(treeId: string, wanted: readonly NodeAt[]): Promise<Map<string, Hash>>;
  /** Keeps completed nodes; a node already kept is the same hash (the same leaves made it). */
  store(treeId: string, nodes: readonly StoredNode[]): Promise<void>;
}

/** A node's place: its level (0 for a leaf) and its index among the nodes of that level. */
export interface NodeAt {
  readonly level: number;
  readonly index: number;
}

/** A NodeStore's key for a node. */
export const nodeKey = ({ level, index }: NodeAt): string => `${level}/${index}`;

/**
 * Runs `compute` (a proof, a root) over a tree of `size` leaves, fetching first exactly the nodes
 * it asks for: a dry run records them, stored ones are read in one call, the rest come from the
 * leaves of their tiles.
 */
export async function overTree<T>(
  store: NodeStore,
  tree: TreeSource,
  size: number,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  const wanted: NodeAt[] = [];
  compute({
    size,
    perfect: (level, index) => {
      wanted.push({ level, index });
      return Buffer.alloc(32);
    },
  });
  const stored = await store.nodes(
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
        const hash = stored.get(nodeKey({ level, index }));
        if (!hash) throw new Error(`tree "${tree.id}": node ${level}/${index} is missing`);
        return hash;
      }
      const tile = Math.floor((index * 2 ** level) / TILE);
      return tiles.get(tile)!.perfect(level, index - tile * 2 ** (TILE_LEVEL - level));
    },
  });
}
