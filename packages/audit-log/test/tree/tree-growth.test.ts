import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  memoryTree,
  treeRoot,
  type Hash,
} from '../../src/transparency/merkle.js';
import { TILE, type StoredNode } from '../../src/transparency/frontier.js';
import { nodeKey, overTree, type NodeStore } from '../../src/tree/tiled-tree.js';
import { extendTree, loadFrontier, treeRootAt } from '../../src/tree/tree-growth.js';
import { leavesOf, TreeLeavesMissing, type TreeSource } from '../../src/tree/tree-source.js';

/** A NodeStore in a Map, counting what it is asked, as a service's table would hold it. */
function memoryNodes(): NodeStore & { kept: Map<string, Hash>; reads: number } {
  const kept = new Map<string, Hash>();
  return {
    kept,
    reads: 0,
    async nodes(treeId, wanted) {
      this.reads += 1;
      const found = new Map<string, Hash>();
      for (const node of wanted) {
        const hash = kept.get(`${treeId} ${nodeKey(node)}`);
        if (hash) found.set(nodeKey(node), hash);
      }
      return found;
    },
    async store(treeId, nodes: readonly StoredNode[]) {
      for (const node of nodes) kept.set(`${treeId} ${nodeKey(node)}`, node.hash);
    },
  };
}

const leavesUpTo = (n: number) =>
  Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`event ${i + 1}`)));

/** A tree whose leaves are `all`, the first `gone` of them no longer readable (archived). */
const source = (id: string, all: readonly Hash[], gone = 0): TreeSource => ({
  id,
  leaves: async (from, to) => all.slice(Math.max(from - 1, gone), to),
});

describe('tiled trees grown through a NodeStore', () => {
  const size = 3 * TILE + 17;
  const all = leavesUpTo(size);
  const whole = memoryTree(all);

  it('grows by extendTree in rounds to the root a tree in memory has', async () => {
    const store = memoryNodes();
    const tree = source('grown', all);
    for (let at = 0; at < size; at += 100) {
      expect(await extendTree(store, tree, at, all.slice(at, at + 100))).toBe(true);
    }
    // Only perfect subtrees of a tile or more are kept: three tiles, one pair of them.
    expect(store.kept.size).toBe(4);
    expect(await treeRootAt(store, source('grown', []), size)).toEqual(treeRoot(whole, size));
  });

  it('proves from stored nodes and the leaves of at most two tiles', async () => {
    const store = memoryNodes();
    const tree = source('proofs', all);
    await extendTree(store, tree, 0, all);
    let leavesRead = 0;
    const counting: TreeSource = {
      id: 'proofs',
      leaves: async (from, to) => ((leavesRead += to - from + 1), tree.leaves(from, to)),
    };
    const proof = await overTree(store, counting, size, (t) => inclusionProof(t, 5, size));
    expect(proof).toEqual(inclusionProof(whole, 5, size));
    expect(leavesRead).toBeLessThanOrEqual(2 * TILE);
    const from = TILE + 3;
    expect(await overTree(store, tree, size, (t) => consistencyProof(t, from, size))).toEqual(
      consistencyProof(whole, from, size),
    );
  });

  it('rebuilds a frontier whose nodes were never stored, and stores them', async () => {
    const store = memoryNodes();
    const frontier = await loadFrontier(store, source('old', all), size);
    expect(frontier.size).toBe(size);
    expect(store.kept.size).toBe(4);
  });

  it('leaves a tree whose unbuilt history is archived as it is', async () => {
    const store = memoryNodes();
    const tree = source('archived', all, TILE);
    await expect(leavesOf(tree, 1, 10)).rejects.toBeInstanceOf(TreeLeavesMissing);
    expect(await extendTree(store, tree, size - 1, all.slice(size - 1))).toBe(false);
    expect(store.kept.size).toBe(0);
  });
});
