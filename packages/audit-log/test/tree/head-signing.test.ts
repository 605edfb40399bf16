import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { leafHash, memoryTree, treeRoot, type Hash } from '../../src/transparency/merkle.js';
import { headFolder, treeHeadFileName } from '../../src/head-files.js';
import type { SignedTreeHead } from '../../src/transparency/tree-head.js';
import type { NodeStore } from '../../src/tree/tiled-tree.js';
import { signGrownHeads, type HeadStore } from '../../src/tree/head-signing.js';

const noNodes: NodeStore = { nodes: async () => new Map(), store: async () => undefined };
const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`e${i}`)));

function store(sizes: Record<string, number>): HeadStore & { kept: SignedTreeHead[] } {
  const kept: SignedTreeHead[] = [];
  return {
    kept,
    nodes: noNodes,
    trees: async () =>
      Object.entries(sizes).map(([id, size]) => ({
        tree: { id, leaves: async (from: number, to: number) => leaves(size).slice(from - 1, to) },
        size,
      })),
    signedSize: async (treeId) =>
      Math.max(0, ...kept.filter((head) => head.treeId === treeId).map((head) => head.size)),
    keep: async (head) => void kept.push(head),
  };
}

const sign = (treeId: string, size: number, root: Hash) =>
  `${treeId}\n${size}\n${root.toString('base64')}\n`;

describe('signGrownHeads', () => {
  it('signs each grown tree once over its root, writes its file once, and tells of it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'heads-'));
    const heads = store({ shop: 5, '': 9 });
    const told: SignedTreeHead[] = [];
    expect(await signGrownHeads(heads, sign, { dir, onTreeHead: (h) => told.push(h) })).toBe(2);
    expect(told).toEqual(heads.kept);
    expect(heads.kept[0]!.note).toBe(sign('shop', 5, treeRoot(memoryTree(leaves(5)), 5)));
    const file = path.join(headFolder(dir, ''), treeHeadFileName(9));
    expect(await readFile(file, 'utf8')).toBe(heads.kept[1]!.note);
    expect((await stat(file)).mode & 0o777).toBe(0o444);
    // Nothing grew: nothing signed again.
    expect(await signGrownHeads(heads, sign, { dir })).toBe(0);
  });
});
