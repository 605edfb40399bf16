/**
 * C2SP tlog-tiles (https://c2sp.org/tlog-tiles) tile coordinates: a tile's level `L` (0: leaf
 * hashes; L ≥ 1: each hash the root of a full tile below), its index `N` at that level, and its
 * width `W` (256 for a full tile, 1–255 for a partial one). Tiles are 8 levels of the tree high.
 */
export interface TileCoordinates {
  readonly level: number;
  readonly index: bigint;
  readonly width: number;
}

/** Hashes in a full tile: 2^8. */
export const TILE_WIDTH = 256;
/** The highest level a tile of a tree of at most 2^63 leaves can be at. */
const MAX_LEVEL = 7;

const PATH = /^(0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** `N` as the spec writes it: zero-padded 3-digit elements, all but the last `x`-prefixed. */
export function tileIndexPath(index: bigint): string {
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000n).padStart(3, '0'));
    rest /= 1000n;
  } while (rest > 0n);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** A tile's path below `<prefix>/tile/`: `<L>/<N>[.p/<W>]`. */
export function tilePath({ level, index, width }: TileCoordinates): string {
  const partial = width < TILE_WIDTH ? `.p/${width}` : '';
  return `${level}/${tileIndexPath(index)}${partial}`;
}

/**
 * The tile a path names, or undefined for any path not written exactly as {@link tilePath}
 * writes it (leading zeros, a width of 0 or ≥ 256, a level past 7): one tile, one path.
 */
export function parseTilePath(path: string): TileCoordinates | undefined {
  const match = PATH.exec(path);
  if (!match) return undefined;
  const level = Number(match[1]);
  const width = match[3] === undefined ? TILE_WIDTH : Number(match[3]);
  if (level > MAX_LEVEL || width > TILE_WIDTH || (match[3] !== undefined && width === TILE_WIDTH)) {
    return undefined;
  }
  const index = BigInt(match[2]!.replaceAll('x', '').replaceAll('/', ''));
  const tile = { level, index, width };
  return tilePath(tile) === path ? tile : undefined;
}

/**
 * Whether a tree of `size` leaves holds the tile: a full tile when the tree covers all it spans,
 * a partial one when its width is exactly what a tree of some size up to `size` leaves there.
 * A tile served for a head is never another head's partial (the spec: each size's own).
 */
export function tileWithin(tile: TileCoordinates, size: bigint): boolean {
  const span = 1n << BigInt(8 * tile.level);
  const end = (tile.index * BigInt(TILE_WIDTH) + BigInt(tile.width)) * span;
  return end <= size;
}
