import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RecordedEvent } from '../event-store/types.js';
import { leafHash, memoryTree, type Hash, type TreeHashes } from '../transparency/merkle.js';
import { TILE_LEVEL } from '../transparency/frontier.js';
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

/** Stored nodes of a space's tree, by "level/index". */
export async function storedNodes(
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
        if (!hash) throw new Error(`space ${spaceId}: node ${level}/${index} is missing`);
        return hash;
      }
      const tile = Math.floor((index * 2 ** level) / TILE);
      return tiles.get(tile)!.perfect(level, index - tile * 2 ** (TILE_LEVEL - level));
    },
  });
}
