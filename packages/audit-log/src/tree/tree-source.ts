import type { Hash } from '../transparency/merkle.js';

/**
 * One tree as a store reads it: its id (a space's, or the log tree's) and its leaves. The tree's
 * nodes come from a NodeStore (tiled-tree.ts); its leaves from wherever the log keeps its events.
 */
export interface TreeSource {
  readonly id: string;
  /** The leaf hashes of leaves `from` through `to` (1-based, inclusive), in order. */
  leaves(from: number, to: number): Promise<Hash[]>;
}

/**
 * Leaves a tree needs but the store no longer holds (their partition was archived, or they were
 * never sealed): a tree is never computed over fewer leaves than it has.
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

/** Undefined for TreeLeavesMissing (a tree whose unbuilt history is archived), else rethrown. */
export function unlessLeavesMissing<T>(pending: Promise<T>): Promise<T | undefined> {
  return pending.catch((error: unknown) => {
    if (error instanceof TreeLeavesMissing) return undefined;
    throw error;
  });
}
