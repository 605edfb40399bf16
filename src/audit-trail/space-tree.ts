import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RecordedEvent } from '../event-store/types.js';
import { leafHash, memoryTree, type Hash, type TreeHashes } from '../transparency/merkle.js';
import {
  appendLeaves,
  frontierRoot,
  TILE_LEVEL,
  type Frontier,
  type StoredNode,
} from '../transparency/frontier.js';
import { canonicalEventBytes } from './chain-link.js';
import { eventsInRange, sealEnd } from './chain-rows.js';
import type { Redact } from './redaction.js';

/**
 * Each space's events as an RFC 9162 Merkle tree (migration 023): leaf i is the space's event of
 * sequence i + 1, hashed over the bytes its space chain covers. Perfect subtrees of 2^TILE_LEVEL
 * leaves and more are stored as the sealer completes them; anything smaller is recomputed from
 * the events of one tile, so proofs cost O(log n) rows and at most two tiles of events.
 */
const TILE = 2 ** TILE_LEVEL;

/** How errors name a space's tree. */
export const spaceTreeId = (spaceId: string) => `space ${spaceId}`;

/** An event's leaf hash in its space's tree. */
export function spaceLeaf(event: RecordedEvent, redact: Redact): Hash {
  return leafHash(canonicalEventBytes(redact(event)));
}

/** The leaf hashes of a space's events of sequences `from` through `to` (1-based), in order. */
export async function spaceLeaves(
  db: Kysely<Database>,
  spaceId: string,
  from: number,
  to: number,
  redact: Redact,
): Promise<Hash[]> {
  if (to < from) return [];
  // The space's seals from the one holding `from` through the one holding `to`: a range of the
  // primary key, bounded above by the first seal to reach `to`.
  const seals = await db
    .selectFrom('space_seals')
    .select(['first_sequence', 'last_sequence', 'seal_number', 'min_position', 'max_position'])
    .where('space_id', '=', spaceId)
    .where('last_sequence', '>=', from)
    .where(
      'last_sequence',
      '<=',
      db
        .selectFrom('space_seals')
        .select((eb) => eb.fn.min('last_sequence').as('last'))
        .where('space_id', '=', spaceId)
        .where('last_sequence', '>=', to),
    )
    .orderBy('last_sequence')
    .execute();
  if (seals.length === 0) return [];
  const first = seals[0]!;
  const last = seals.at(-1)!;
  const bounds = await db
    .selectFrom('event_seals')
    .select(['seal_number', 'last_transaction_id', 'last_position'])
    .where('seal_number', 'in', [Number(first.seal_number) - 1, Number(last.seal_number)])
    .execute();
  const before = bounds.find((row) => Number(row.seal_number) === Number(first.seal_number) - 1);
  const through = bounds.find((row) => Number(row.seal_number) === Number(last.seal_number))!;
  const firstSequence = Number(first.first_sequence);
  const events = await eventsInRange(
    db,
    {
      after: before ? sealEnd(before) : { transactionId: '0', globalPosition: 0 },
      through: sealEnd(through),
    },
    {
      spaceId,
      minPosition: Math.min(...seals.map((seal) => Number(seal.min_position))),
      maxPosition: Math.max(...seals.map((seal) => Number(seal.max_position))),
    },
    { offset: from - firstSequence, limit: to - from + 1 },
  );
  return events.map((event) => spaceLeaf(event, redact));
}

/** Stored nodes of a tree, by "level/index". */
async function storedNodes(
  db: Kysely<Database>,
  spaceId: string,
  wanted: readonly { level: number; index: number }[],
): Promise<Map<string, Hash>> {
  if (wanted.length === 0) return new Map();
  // One index probe per node asked for (a LATERAL lookup), never a scan of the space's nodes.
  const { rows } = await sql<{ level: number; index: string; hash: Buffer }>`
    SELECT w.level, w.index, m.hash
    FROM unnest(${wanted.map((w) => w.level)}::smallint[], ${wanted.map((w) => w.index)}::bigint[])
      AS w(level, index)
    CROSS JOIN LATERAL (
      SELECT hash FROM merkle_nodes n
      WHERE n.space_id = ${spaceId} AND n.level = w.level AND n.index = w.index
    ) m`.execute(db);
  return new Map(rows.map((row) => [`${row.level}/${row.index}`, row.hash]));
}

/**
 * Runs `compute` (a proof, a root) over a space's tree of `size` leaves, fetching first exactly
 * the nodes it asks for: a dry run records them, stored ones are read in one query, the rest
 * come from the events of their tiles.
 */
export async function overSpaceTree<T>(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  redact: Redact,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  const wanted: { level: number; index: number }[] = [];
  compute({
    size,
    perfect: (level, index) => {
      wanted.push({ level, index });
      return Buffer.alloc(32);
    },
  });
  const stored = await storedNodes(
    db,
    spaceId,
    wanted.filter((w) => w.level >= TILE_LEVEL),
  );
  const tiles = new Map<number, TreeHashes>();
  for (const { level, index } of wanted.filter((w) => w.level < TILE_LEVEL)) {
    const tile = Math.floor((index * 2 ** level) / TILE);
    if (tiles.has(tile)) continue;
    const from = tile * TILE + 1;
    tiles.set(
      tile,
      memoryTree(await spaceLeaves(db, spaceId, from, Math.min(from + TILE - 1, size), redact)),
    );
  }
  return compute({
    size,
    perfect: (level, index) => {
      if (level >= TILE_LEVEL) {
        const hash = stored.get(`${level}/${index}`);
        if (!hash) throw new Error(`${spaceTreeId(spaceId)}: node ${level}/${index} is missing`);
        return hash;
      }
      const tile = Math.floor((index * 2 ** level) / TILE);
      return tiles.get(tile)!.perfect(level, index - tile * 2 ** (TILE_LEVEL - level));
    },
  });
}

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
 * nodes they complete, in the sealing transaction. Returns the new size and root.
 */
export async function extendSpaceTree(
  trx: Kysely<Database>,
  spaceId: string,
  previousSize: number,
  events: readonly RecordedEvent[],
  redact: Redact,
): Promise<{ size: number; root: Hash }> {
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
  return { size: appended.frontier.size, root: frontierRoot(appended.frontier)! };
}
