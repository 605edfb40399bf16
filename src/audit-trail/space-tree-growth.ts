import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RecordedEvent } from '../event-store/types.js';
import { treeRoot, type Hash } from '../transparency/merkle.js';
import {
  appendLeaves,
  frontierRoot,
  TILE_LEVEL,
  type Frontier,
  type StoredNode,
} from '../transparency/frontier.js';
import type { Redact } from './redaction.js';
import { overSpaceTree, spaceLeaf, spaceLeaves, storedNodes } from './space-tree.js';

/**
 * How the sealer grows each space's tree (space-tree.ts reads them): its frontier, kept between
 * rounds or rebuilt from the stored nodes and the last tile's events, and the nodes it completes.
 */
const TILE = 2 ** TILE_LEVEL;

/** The frontier of a space's tree at `size`, from its stored nodes and its last tile's events. */
export async function loadFrontier(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  redact: Redact,
): Promise<Frontier> {
  const nodes: { level: number; hash: Hash }[] = [];
  const whole = size - (size % TILE);
  const wanted: { level: number; index: number }[] = [];
  for (let level = 62, start = 0; level >= TILE_LEVEL; level -= 1) {
    if (Math.floor(whole / 2 ** level) % 2 === 1) {
      wanted.push({ level, index: start / 2 ** level });
      start += 2 ** level;
    }
  }
  const stored = await storedNodes(db, spaceId, wanted);
  if (wanted.some(({ level, index }) => !stored.has(`${level}/${index}`))) {
    return rebuildTree(db, spaceId, size, redact);
  }
  for (const { level, index } of wanted)
    nodes.push({ level, hash: stored.get(`${level}/${index}`)! });
  const tail = await spaceLeaves(db, spaceId, whole + 1, size, redact);
  return appendLeaves({ size: whole, nodes }, tail).frontier;
}

/**
 * A space's tree built from its first event (history sealed before the trees existed, or nodes
 * not yet written), storing every node of TILE_LEVEL or more it completes; returns the frontier.
 */
async function rebuildTree(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  redact: Redact,
): Promise<Frontier> {
  let frontier: Frontier = { size: 0, nodes: [] };
  for (let from = 1; from <= size; from += 16 * TILE) {
    const leaves = await spaceLeaves(
      db,
      spaceId,
      from,
      Math.min(from + 16 * TILE - 1, size),
      redact,
    );
    const appended = appendLeaves(frontier, leaves);
    await storeNodes(db, spaceId, appended.completed);
    frontier = appended.frontier;
  }
  return frontier;
}

/** Inserts completed nodes (a node already there is the same hash: the same events made it). */
export async function storeNodes(
  db: Kysely<Database>,
  spaceId: string,
  nodes: readonly StoredNode[],
): Promise<void> {
  if (nodes.length === 0) return;
  await db
    .insertInto('merkle_nodes')
    .values(nodes.map((node) => ({ space_id: spaceId, ...node })))
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

// The sealer's frontiers, kept between rounds (it is the only writer); checked against the size
// read in the sealing transaction, so a round that rolled back never leaves a wrong one in use.
const frontiers = new Map<string, Frontier>();
const MAX_FRONTIERS = 10_000;

/**
 * Extends a space's tree by `events` (its next ones, in order) from `previousSize`, storing the
 * nodes they complete, in the sealing transaction.
 */
export async function extendSpaceTree(
  trx: Kysely<Database>,
  spaceId: string,
  previousSize: number,
  events: readonly RecordedEvent[],
  redact: Redact,
): Promise<void> {
  const cached = frontiers.get(spaceId);
  const frontier =
    cached?.size === previousSize ? cached : await loadFrontier(trx, spaceId, previousSize, redact);
  const appended = appendLeaves(
    frontier,
    events.map((event) => spaceLeaf(event, redact)),
  );
  await storeNodes(trx, spaceId, appended.completed);
  if (frontiers.size >= MAX_FRONTIERS) frontiers.clear();
  frontiers.set(spaceId, appended.frontier);
}

/** The root of a space's tree of `size` leaves: the sealer's frontier if at that size, else read. */
export async function spaceTreeRoot(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  redact: Redact,
): Promise<Hash> {
  const cached = frontiers.get(spaceId);
  if (cached?.size === size) return frontierRoot(cached)!;
  return overSpaceTree(db, spaceId, size, redact, (tree) => treeRoot(tree, size));
}
