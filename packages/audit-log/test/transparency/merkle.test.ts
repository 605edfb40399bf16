import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ROOT,
  consistencyProof,
  inclusionProof,
  leafHash,
  memoryTree,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/transparency/merkle.js';

// transparency-dev/merkle testonly/constants.go: the leaf inputs and the root of every prefix.
const LEAF_INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const tree = memoryTree(LEAF_INPUTS.map((hex) => leafHash(Buffer.from(hex, 'hex'))));
// Beside the test, so it runs from the root and from the package alike.
const FIXTURES = fileURLToPath(new URL('../fixtures/transparency-dev', import.meta.url));

function vectors(
  kind: 'inclusion' | 'consistency',
): Array<Record<string, unknown> & { file: string }> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.json')) files.push(full);
    }
  };
  walk(path.join(FIXTURES, kind));
  return files.map((file) => ({
    file,
    ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>),
  }));
}
const bytes = (value: unknown) => Buffer.from((value as string | null) ?? '', 'base64');
const hashes = (value: unknown) => ((value as string[] | null) ?? []).map(bytes);

describe('the RFC 9162 Merkle tree, against the transparency-dev test vectors', () => {
  it('gives the published root of every prefix of the eight reference leaves', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe(ROOTS[0]);
    for (let size = 0; size <= 8; size++)
      expect(treeRoot(tree, size).toString('hex')).toBe(ROOTS[size]);
  });

  it('accepts exactly the inclusion proofs the vectors accept', () => {
    const all = vectors('inclusion');
    expect(all.length).toBeGreaterThan(80);
    for (const v of all) {
      const verdict = verifyInclusion(
        bytes(v.leafHash),
        Number(v.leafIdx),
        Number(v.treeSize),
        hashes(v.proof),
        bytes(v.root),
      );
      expect([v.file, verdict]).toEqual([v.file, v.wantErr === false]);
    }
  });

  it('accepts exactly the consistency proofs the vectors accept', () => {
    const all = vectors('consistency');
    expect(all.length).toBeGreaterThan(80);
    for (const v of all) {
      const verdict = verifyConsistency(
        Number(v.size1),
        Number(v.size2),
        hashes(v.proof),
        bytes(v.root1),
        bytes(v.root2),
      );
      expect([v.file, verdict]).toEqual([v.file, v.wantErr === false]);
    }
  });

  it('generates the very proofs of the happy-path vectors', () => {
    const happy = (kind: 'inclusion' | 'consistency') =>
      vectors(kind).filter((v) => v.file.endsWith('happy-path.json'));
    for (const v of happy('inclusion')) {
      expect(inclusionProof(tree, Number(v.leafIdx), Number(v.treeSize))).toEqual(hashes(v.proof));
    }
    for (const v of happy('consistency')) {
      expect(consistencyProof(tree, Number(v.size1), Number(v.size2))).toEqual(hashes(v.proof));
    }
    expect(happy('inclusion').length + happy('consistency').length).toBeGreaterThanOrEqual(8);
  });

  it('proves every leaf of every tree size, and every pair of sizes, of a 70-leaf tree, and refuses a proof moved to another leaf', () => {
    const big = memoryTree(Array.from({ length: 70 }, (_, i) => leafHash(Buffer.from([i]))));
    for (let size = 1; size <= 70; size++) {
      const root = treeRoot(big, size);
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(big, index, size);
        expect(verifyInclusion(big.perfect(0, index), index, size, proof, root)).toBe(true);
        if (size > 1)
          expect(
            verifyInclusion(big.perfect(0, index), (index + 1) % size, size, proof, root),
          ).toBe(false);
      }
      for (let size1 = 1; size1 <= size; size1++) {
        const proof = consistencyProof(big, size1, size);
        expect(verifyConsistency(size1, size, proof, treeRoot(big, size1), root)).toBe(true);
      }
    }
  });
});
