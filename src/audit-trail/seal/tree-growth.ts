import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { treeRoot, type Hash } from '#audit-log/transparency/merkle.js';
import {
  appendLeaves,
  frontierRoot,
  TILE_LEVEL,
  type Frontier,
  type StoredNode,
} from '#audit-log/transparency/frontier.js';
import {
  leavesOf,
  overTree,
  storedNodes,
  TILE,
  TreeLeavesMissing,
  type TreeSource,
} from './tree-store.js';

/**
 * How the sealer grows the trees (tree-store.ts reads them): each tree's frontier, kept between
 * rounds or rebuilt from the stored nodes and the last tile's leaves, and the nodes it completes.
 */

/** The frontier of a tree at `size`, from its stored nodes and its last tile's leaves. */
export async function loadFrontier(
  db: Kysely<Database>,
  tree: TreeSource,
  size: number,
): Promise<Frontier> {
  const nodes: { level: number; hash: Hash }[] = [];
  const whole = size - (size % TILE);
  const wanted: { level: number; index: number }[] = [];
  for (let level = 62, start = 0; level >= TILE_LEVEL; level -= 1) {
    if (Math.floor(whole / 2 ** level) % 2 === 1) {
      wanted.push({ level, index: start / 2 ** level });
      start += 2 ** level;
    }
  }
  const stored = await storedNodes(db, tree.id, wanted);
  if (wanted.some(({ level, index }) => !stored.has(`${level}/${index}`))) {
    return rebuildTree(db, tree, size);
  }
  for (const { level, index } of wanted)
    nodes.push({ level, hash: stored.get(`${level}/${index}`)! });
  const tail = await leavesOf(tree, whole + 1, size);
  return appendLeaves({ size: whole, nodes }, tail).frontier;
}

/**
 * A tree built from its first leaf (history sealed before the trees existed, or nodes not yet
 * written), storing every node of TILE_LEVEL or more it completes; returns the frontier.
 */
async function rebuildTree(
  db: Kysely<Database>,
  tree: TreeSource,
  size: number,
): Promise<Frontier> {
  let frontier: Frontier = { size: 0, nodes: [] };
  for (let from = 1; from <= size; from += 16 * TILE) {
    const leaves = await leavesOf(tree, from, Math.min(from + 16 * TILE - 1, size));
    const appended = appendLeaves(frontier, leaves);
    await storeNodes(db, tree.id, appended.completed);
    frontier = appended.frontier;
  }
  return frontier;
}

/** Inserts completed nodes (a node already there is the same hash: the same events made it). */
export async function storeNodes(
  db: Kysely<Database>,
  treeId: string,
  nodes: readonly StoredNode[],
): Promise<void> {
  if (nodes.length === 0) return;
  await db
    .insertInto('merkle_nodes')
    .values(nodes.map((node) => ({ space_id: treeId, ...node })))
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

// The sealer's frontiers, kept between rounds (it is the only writer); checked against the size
// read in the sealing transaction, so a round that rolled back never leaves a wrong one in use.
const frontiers = new Map<string, Frontier>();
const MAX_FRONTIERS = 10_000;

/**
 * Extends a tree by `leaves` (its next ones, in order) from `previousSize`, storing the nodes they
 * complete, in the sealing transaction. False when the tree cannot be grown because leaves it was
 * never built from are archived (history archived before the trees existed): the tree stays as it
 * is, unsigned, and sealing goes on.
 */
export async function extendTree(
  trx: Kysely<Database>,
  tree: TreeSource,
  previousSize: number,
  leaves: readonly Hash[],
): Promise<boolean> {
  const cached = frontiers.get(tree.id);
  const frontier =
    cached?.size === previousSize
      ? cached
      : await loadFrontier(trx, tree, previousSize).catch((error: unknown) => {
          if (error instanceof TreeLeavesMissing) return undefined;
          throw error;
        });
  if (!frontier) return false;
  const appended = appendLeaves(frontier, leaves);
  await storeNodes(trx, tree.id, appended.completed);
  if (frontiers.size >= MAX_FRONTIERS) frontiers.clear();
  frontiers.set(tree.id, appended.frontier);
  return true;
}

/** The root of a tree of `size` leaves: the sealer's frontier if at that size, else read. */
export async function treeRootAt(
  db: Kysely<Database>,
  tree: TreeSource,
  size: number,
): Promise<Hash> {
  const cached = frontiers.get(tree.id);
  if (cached?.size === size) return frontierRoot(cached)!;
  return overTree(db, tree, size, (hashes) => treeRoot(hashes, size));
}
