import { describe, expect, it } from 'vitest';
import {
  parseTilePath,
  tileIndexPath,
  tilePath,
  tileWithin,
} from '../../src/transparency/tile-path.js';

describe('C2SP tlog-tiles paths (tile-path.ts)', () => {
  it('writes N in 3-digit groups, all but the last x-prefixed, and a partial width after .p/', () => {
    expect(tileIndexPath(1234067n)).toBe('x001/x234/067');
    expect(tileIndexPath(0n)).toBe('000');
    expect(tileIndexPath(1000n)).toBe('x001/000');
    expect(tilePath({ level: 0, index: 1234067n, width: 256 })).toBe('0/x001/x234/067');
    expect(tilePath({ level: 2, index: 5n, width: 17 })).toBe('2/005.p/17');
  });

  it('reads back exactly what it writes, and refuses every other spelling of a tile', () => {
    for (const tile of [
      { level: 0, index: 1234067n, width: 256 },
      { level: 7, index: 0n, width: 1 },
      { level: 1, index: 999n, width: 255 },
    ]) {
      expect(parseTilePath(tilePath(tile))).toEqual(tile);
    }
    for (const path of [
      '0/x000/005', // a leading group of zeros
      '0/05',
      '0/0005',
      '00/005',
      '8/005', // past the highest level
      '0/005.p/0',
      '0/005.p/256',
      '0/005.p/017',
      'entries/005',
      '0/x001',
      '0/005/',
      '-1/005',
    ]) {
      expect(parseTilePath(path), path).toBeUndefined();
    }
  });

  it('holds a tile within a tree only when the tree spans all of it', () => {
    // A tree of 300 leaves: level-0 tile 0 full, tile 1 only as 44 wide (or narrower, for
    // earlier heads); level 1 tile 0 as 1 wide (the one full tile below).
    expect(tileWithin({ level: 0, index: 0n, width: 256 }, 300n)).toBe(true);
    expect(tileWithin({ level: 0, index: 1n, width: 256 }, 300n)).toBe(false);
    expect(tileWithin({ level: 0, index: 1n, width: 44 }, 300n)).toBe(true);
    expect(tileWithin({ level: 0, index: 1n, width: 45 }, 300n)).toBe(false);
    expect(tileWithin({ level: 1, index: 0n, width: 1 }, 300n)).toBe(true);
    expect(tileWithin({ level: 1, index: 0n, width: 2 }, 300n)).toBe(false);
  });
});
