import { nodeHash, type Hash } from './merkle.js';

/**
 * A tree's right edge ("compact range" in transparency-dev's terms): what appending needs, and
 * all a growing tree must keep in memory. Completed subtrees of 2^TILE_LEVEL leaves and more are
 * handed out as they complete, for a store to keep; anything smaller is cheap to recompute.
 */
export const TILE_LEVEL = 8;

/** Leaves in a tile: the stored trees' and the archive files' unit. */
export const TILE = 2 ** TILE_LEVEL;

/** A tree's right edge: the perfect subtree of each 1 bit of its size, largest first. */
export interface Frontier {
  readonly size: number;
  readonly nodes: readonly { readonly level: number; readonly hash: Hash }[];
}

/** A stored node: a perfect subtree of TILE_LEVEL or more. */
export interface StoredNode {
  readonly level: number;
  readonly index: number;
  readonly hash: Hash;
}

/** `frontier` with `leaves` appended, and the nodes of TILE_LEVEL or more that they completed. */
export function appendLeaves(
  frontier: Frontier,
  leaves: readonly Hash[],
): { frontier: Frontier; completed: StoredNode[] } {
  const nodes = [...frontier.nodes];
  const completed: StoredNode[] = [];
  let size = frontier.size;
  for (const leaf of leaves) {
    let node = { level: 0, hash: leaf };
    size += 1;
    while (nodes.length > 0 && nodes.at(-1)!.level === node.level) {
      const left = nodes.pop()!;
      node = { level: node.level + 1, hash: nodeHash(left.hash, node.hash) };
      if (node.level >= TILE_LEVEL) {
        completed.push({ level: node.level, index: size / 2 ** node.level - 1, hash: node.hash });
      }
    }
    nodes.push(node);
  }
  return { frontier: { size, nodes }, completed };
}

/** The root of the tree a frontier ends: node(F0, node(F1, …)), as RFC 9162 splits it. */
export function frontierRoot(frontier: Frontier): Hash | undefined {
  let root: Hash | undefined;
  for (const { hash } of [...frontier.nodes].reverse()) root = root ? nodeHash(hash, root) : hash;
  return root;
}
