import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Hash, TreeHashes } from '#audit-log/transparency/merkle.js';
import { eventLeafHash } from '../event-leaf.js';
import { eventsInRange, sealEnd } from './seal-ranges.js';
import { overTree } from '#audit-log/tree/tiled-tree.js';
import type { TreeSource } from '#audit-log/tree/tree-source.js';
import { treeNodes } from './tree-store.js';
import { LOG_START } from '#event-log/types.js';

// Each space's events as an RFC 9162 tree: leaf i is its event of sequence i + 1.

/** The leaf hashes of a space's events of sequences `from` through `to` (1-based), in order. */
export async function spaceLeaves(
  db: Kysely<Database>,
  spaceId: string,
  from: number,
  to: number,
): Promise<Hash[]> {
  if (to < from) return [];
  // The seals holding `from` through `to`: a primary-key range bounded by the first to reach `to`.
  const seals = await db
    .selectFrom('space_ranges')
    .select(['first_sequence', 'last_sequence', 'seal_number', 'min_position', 'max_position'])
    .where('space_id', '=', spaceId)
    .where('last_sequence', '>=', from)
    .where(
      'last_sequence',
      '<=',
      db
        .selectFrom('space_ranges')
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
    .selectFrom('log_seals')
    .select(['seal_number', 'last_transaction_id', 'last_position'])
    .where('seal_number', 'in', [Number(first.seal_number) - 1, Number(last.seal_number)])
    .execute();
  const before = bounds.find((row) => Number(row.seal_number) === Number(first.seal_number) - 1);
  const through = bounds.find((row) => Number(row.seal_number) === Number(last.seal_number))!;
  const firstSequence = Number(first.first_sequence);
  const events = await eventsInRange(
    db,
    {
      after: before ? sealEnd(before) : LOG_START,
      through: sealEnd(through),
    },
    {
      spaceId,
      minPosition: Math.min(...seals.map((seal) => Number(seal.min_position))),
      maxPosition: Math.max(...seals.map((seal) => Number(seal.max_position))),
    },
    { offset: from - firstSequence, limit: to - from + 1 },
  );
  return events.map(eventLeafHash);
}

/** A space's tree, as the tree store reads it (archived-leaves.ts: with the archive files too). */
export function spaceTree(db: Kysely<Database>, spaceId: string): TreeSource {
  return { id: spaceId, leaves: (from, to) => spaceLeaves(db, spaceId, from, to) };
}

/** Runs `compute` (a proof, a root) over a space's tree of `size` leaves (see overTree). */
export function overSpaceTree<T>(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  return overTree(treeNodes(db), spaceTree(db, spaceId), size, compute);
}
