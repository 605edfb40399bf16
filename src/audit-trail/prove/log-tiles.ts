import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { LOG_TREE } from '#audit-log/transparency/tree-head.js';
import {
  parseTilePath,
  TILE_WIDTH,
  tileWithin,
  type TileCoordinates,
} from '#audit-log/transparency/tile-path.js';
import { leavesOf, unlessLeavesMissing } from '#audit-log/tree/tree-source.js';
import { logTree } from '../seal/log-tree.js';
import { memoryTree, treeRoot } from '#audit-log/transparency/merkle.js';
import { findTreeHead, logHeadsPublishedBefore } from './tree-heads.js';

export type { TileCoordinates };

/** The log tree's newest head published before the checkpoint window `nowMs` is in. */
export const publishedLogHead = (db: Kysely<Database>, nowMs: number, intervalSeconds: number) =>
  findTreeHead(db, LOG_TREE, { signedBefore: logHeadsPublishedBefore(nowMs, intervalSeconds) });

/**
 * The tile a public path names, when a tree of `size` leaves (the published head) holds it: a
 * full tile, or a partial one of the width a signed head's size leaves there (the spec's "sizes
 * for which a checkpoint was produced"; any other width is no tile, so paths stay few).
 */
export async function logTileAt(
  db: Kysely<Database>,
  path: string,
  size: number,
): Promise<TileCoordinates | undefined> {
  const tile = parseTilePath(path);
  if (!tile || !tileWithin(tile, BigInt(size))) return undefined;
  if (tile.width === TILE_WIDTH) return tile;
  const span = 256 ** tile.level;
  const start = (Number(tile.index) * TILE_WIDTH + tile.width) * span;
  const head = await db
    .selectFrom('merkle_checkpoints')
    .select('tree_size')
    .where('space_id', '=', LOG_TREE)
    .where('tree_size', '>=', start)
    .where('tree_size', '<', Math.min(start + span, size + 1))
    .limit(1)
    .executeTakeFirst();
  return head ? tile : undefined;
}

/**
 * A tile of the log tree (C2SP tlog-tiles), its hashes concatenated: at level L ≥ 1 the stored
 * roots of the perfect subtrees 8L levels high (one range read of merkle_nodes, no hashing); at
 * level 0 the leaf hashes of its events, read and hashed (one tile of leaves, never a node).
 * Undefined when the store does not hold it all: leaves archived, or nodes not sealed yet. The
 * caller bounds the tile by a published head ({@link tileWithin}).
 */
export async function readLogTile(
  db: Kysely<Database>,
  tile: TileCoordinates,
): Promise<Buffer | undefined> {
  // Within a published head, so within Number's exact range.
  const first = Number(tile.index) * TILE_WIDTH;
  if (tile.level === 0) {
    const from = first + 1;
    const leaves = await unlessLeavesMissing(leavesOf(logTree(db), from, from + tile.width - 1));
    if (!leaves) return undefined;
    // A full tile's root is stored: leaves read wrong (a range archived away below them) never
    // leave as a tile that contradicts every head.
    if (tile.width === TILE_WIDTH) {
      const root = await db
        .selectFrom('merkle_nodes')
        .select('hash')
        .where('space_id', '=', LOG_TREE)
        .where('level', '=', 8)
        .where('index', '=', Number(tile.index))
        .executeTakeFirst();
      if (!root || !root.hash.equals(treeRoot(memoryTree(leaves), TILE_WIDTH))) return undefined;
    }
    return Buffer.concat(leaves);
  }
  const rows = await db
    .selectFrom('merkle_nodes')
    .select(['index', 'hash'])
    .where('space_id', '=', LOG_TREE)
    .where('level', '=', 8 * tile.level)
    .where('index', '>=', first)
    .where('index', '<', first + tile.width)
    .orderBy('index')
    .execute();
  if (rows.length !== tile.width) return undefined;
  return Buffer.concat(rows.map((row) => row.hash));
}
