import { createHash } from 'node:crypto';

/**
 * The Merkle tree of RFC 9162 §2.1 (Certificate Transparency v2, as Trillian, Rekor and the
 * transparency-dev tools hash): leaves SHA-256(0x00 ‖ entry), nodes SHA-256(0x01 ‖ left ‖ right),
 * the empty tree SHA-256(""). Proofs are generated from a {@link TreeHashes} source, so the same
 * code serves a tree held in memory and one kept as stored subtree hashes; verification needs
 * nothing but the proof, as a reviewer's script or a resource server has it.
 */

/** A 32-byte SHA-256 value. */
export type Hash = Buffer;

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/** The hash of the empty tree. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** A leaf's hash: SHA-256(0x00 ‖ entry). */
export function leafHash(entry: Uint8Array): Hash {
  return createHash('sha256').update(LEAF).update(entry).digest();
}

/** An inner node's hash: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Hash, right: Hash): Hash {
  return createHash('sha256').update(NODE).update(left).update(right).digest();
}

/**
 * Where proofs take their hashes from: the hash of each perfect subtree, the 2^level leaves from
 * `index · 2^level` on. Every proof needs O(log n) of them.
 */
export interface TreeHashes {
  /** Leaves the source holds; proofs may be asked for any tree size up to it. */
  readonly size: number;
  perfect(level: number, index: number): Hash;
}

/** The largest power of two smaller than `n` (n ≥ 2): where RFC 9162 splits a tree of n leaves. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[start:end]) from the perfect subtrees of `tree`. */
export function rangeRoot(tree: TreeHashes, start: number, end: number): Hash {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  const level = Math.log2(n);
  if (Number.isInteger(level) && start % n === 0) return tree.perfect(level, start / n);
  const k = split(n);
  return nodeHash(rangeRoot(tree, start, start + k), rangeRoot(tree, start + k, end));
}

function checkSize(tree: TreeHashes, size: number): void {
  if (!Number.isSafeInteger(size) || size < 0 || size > tree.size) {
    throw new RangeError(`tree size ${size} is not within 0..${tree.size}`);
  }
}

/** The root of the tree of the first `size` leaves. */
export function treeRoot(tree: TreeHashes, size: number): Hash {
  checkSize(tree, size);
  return rangeRoot(tree, 0, size);
}

/** RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of the first `size` leaves. */
export function inclusionProof(tree: TreeHashes, index: number, size: number): Hash[] {
  checkSize(tree, size);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  }
  const path: Hash[] = [];
  let [start, end, m] = [0, size, index];
  while (end - start > 1) {
    const k = split(end - start);
    if (m < k) {
      path.push(rangeRoot(tree, start + k, end));
      end = start + k;
    } else {
      path.push(rangeRoot(tree, start, start + k));
      start += k;
      m -= k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1: the consistency proof from the tree of `size1` leaves to that of `size2`. */
export function consistencyProof(tree: TreeHashes, size1: number, size2: number): Hash[] {
  checkSize(tree, size2);
  if (!Number.isSafeInteger(size1) || size1 < 1 || size1 > size2) {
    throw new RangeError(`no consistency proof from ${size1} to ${size2} leaves`);
  }
  const proof: Hash[] = [];
  let [start, end, m, whole] = [0, size2, size1, true];
  while (m !== end - start) {
    const k = split(end - start);
    if (m <= k) {
      proof.push(rangeRoot(tree, start + k, end));
      end = start + k;
    } else {
      proof.push(rangeRoot(tree, start, start + k));
      start += k;
      m -= k;
      whole = false;
    }
  }
  if (!whole) proof.push(rangeRoot(tree, start, end));
  return proof.reverse();
}

/** A tree held in memory, its perfect subtrees computed once: O(n) to build, O(log n) a proof. */
export function memoryTree(leafHashes: readonly Hash[]): TreeHashes {
  const levels: Hash[][] = [[...leafHashes]];
  for (let level = levels[0]!; level.length > 1;) {
    const up: Hash[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) up.push(nodeHash(level[i]!, level[i + 1]!));
    levels.push(up);
    level = up;
  }
  return {
    size: leafHashes.length,
    perfect: (level, index) => {
      const hash = levels[level]?.[index];
      if (!hash) throw new RangeError(`no perfect subtree ${level}/${index}`);
      return hash;
    },
  };
}

const sameHash = (a: Uint8Array, b: Uint8Array) => a.length === 32 && Buffer.compare(a, b) === 0;

/**
 * RFC 9162 §2.1.3.2: true when `proof` shows the leaf of hash `leaf` at `index` in the tree of
 * `size` leaves whose root is `root`. Any other proof, of any length, is false.
 */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return false;
  }
  if (leaf.length !== 32 || proof.some((hash) => hash.length !== 32)) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r: Hash = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      r = nodeHash(Buffer.from(p), r);
      while ((fn & 1n) === 0n && fn !== 0n) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      r = nodeHash(r, Buffer.from(p));
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  return sn === 0n && sameHash(r, root);
}

/**
 * RFC 9162 §2.1.4.2: true when `proof` shows that the tree of `size2` leaves with root `root2`
 * extends the tree of `size1` leaves with root `root1`, nothing recorded in it changed. Equal
 * sizes need an empty proof and equal roots; a proof from the empty tree proves nothing (false).
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2)) return false;
  if (size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && Buffer.compare(root1, root2) === 0;
  if (proof.length === 0 || proof.some((hash) => hash.length !== 32)) return false;
  const path = proof.map((hash) => Buffer.from(hash));
  // A first tree that is a perfect subtree of the second is itself the proof's first node.
  if ((BigInt(size1) & BigInt(size1 - 1)) === 0n) path.unshift(Buffer.from(root1));
  let fn = BigInt(size1 - 1);
  let sn = BigInt(size2 - 1);
  while ((fn & 1n) === 1n) [fn, sn] = [fn >> 1n, sn >> 1n];
  let fr: Hash = path[0]!;
  let sr: Hash = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while ((fn & 1n) === 0n && fn !== 0n) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  return sn === 0n && sameHash(fr, root1) && sameHash(sr, root2);
}
