import { treeRoot, type Hash } from '../transparency/merkle.js';
import {
  appendLeaves,
  frontierRoot,
  TILE,
  TILE_LEVEL,
  type Frontier,
} from '../transparency/frontier.js';
import { nodeKey, overTree, type NodeAt, type NodeStore } from './tiled-tree.js';
import { leavesOf, unlessLeavesMissing, type TreeSource } from './tree-source.js';

/**
 * How a sealer grows the trees (tiled-tree.ts reads them): each tree's frontier, kept between
 * rounds or rebuilt from the stored nodes and the last tile's leaves, and the nodes it completes.
 */

/** The frontier of a tree at `size`, from its stored nodes and its last tile's leaves. */
export async function loadFrontier(
  store: NodeStore,
  tree: TreeSource,
  size: number,
): Promise<Frontier> {
  const whole = size - (size % TILE);
  const wanted: NodeAt[] = [];
  for (let level = 62, start = 0; level >= TILE_LEVEL; level -= 1) {
    if (Math.floor(whole / 2 ** level) % 2 === 1) {
      wanted.push({ level, index: start / 2 ** level });
      start += 2 ** level;
    }
  }
  const stored = await store.nodes(tree.id, wanted);
  if (wanted.some((node) => !stored.has(nodeKey(node)))) return rebuildTree(store, tree, size);
  const nodes = wanted.map((node) => ({ level: node.level, hash: stored.get(nodeKey(node))! }));
  const tail = await leavesOf(tree, whole + 1, size);
  return appendLeaves({ size: whole, nodes }, tail).frontier;
}

/**
 * A tree built from its first leaf (history sealed before the trees existed, or nodes not yet
 * written), storing every node of TILE_LEVEL or more it completes; returns the frontier.
 */
async function rebuildTree(store: NodeStore, tree: TreeSource, size: number): Promise<Frontier> {
  let frontier: Frontier = { size: 0, nodes: [] };
  for (let from = 1; from <= size; from += 16 * TILE) {
    const leaves = await leavesOf(tree, from, Math.min(from + 16 * TILE - 1, size));
    const appended = appendLeaves(frontier, leaves);
    if (appended.completed.length > 0) await store.store(tree.id, appended.completed);
    frontier = appended.frontier;
  }
  return frontier;
}

// The sealer's frontiers, kept between rounds (it is the only writer); checked against the size
// read in the sealing transaction, so a round that rolled back never leaves a wrong one in use.
const frontiers = new Map<string, Frontier>();
const MAX_FRONTIERS = 10_000;

/**
 * Extends a tree by `leaves` (its next ones, in order) from `previousSize`, storing the nodes they
 * complete (through the sealing transaction's store). False when the tree cannot be grown because
 * leaves it was never built from are archived (history archived before the trees existed): the
 * tree stays as it is, unsigned, and sealing goes on.
 */
export async function extendTree(
  store: NodeStore,
  tree: TreeSource,
  previousSize: number,
  leaves: readonly Hash[],
): Promise<boolean> {
  const cached = frontiers.get(tree.id);
  const frontier =
    cached?.size === previousSize
      ? cached
      : await unlessLeavesMissing(loadFrontier(store, tree, previousSize));
  if (!frontier) return false;
  const appended = appendLeaves(frontier, leaves);
  if (appended.completed.length > 0) await store.store(tree.id, appended.completed);
  if (frontiers.size >= MAX_FRONTIERS) frontiers.clear();
  frontiers.set(tree.id, appended.frontier);
  return true;
}

/** The root of a tree of `size` leaves: the sealer's frontier if at that size, else read. */
export async function treeRootAt(store: NodeStore, tree: TreeSource, size: number): Promise<Hash> {
  const cached = frontiers.get(tree.id);
  if (cached?.size === size) return frontierRoot(cached)!;
  return overTree(store, tree, size, (hashes) => treeRoot(hashes, size));
}
