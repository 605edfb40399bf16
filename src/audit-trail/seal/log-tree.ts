import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type RecordedEvent, LOG_START } from '#event-log/types.js';
import { inRange } from '#event-log/log-range.js';
import type { TreeHashes } from '#audit-log/transparency/merkle.js';
import { LOG_TREE } from '#audit-log/transparency/tree-head.js';
import { eventsInRange, sealEnd, sealHolding, sealRange } from './seal-ranges.js';
import { eventLeafHash } from '../event-leaf.js';
import { overTree } from '#audit-log/tree/tiled-tree.js';
import type { TreeSource } from '#audit-log/tree/tree-source.js';
import { treeNodes } from './tree-store.js';

/** The whole log as one Merkle tree: the same leaves as the space trees, one tree for witnesses. */

/** The log tree's id in merkle_nodes and merkle_checkpoints (the package's). */
export { LOG_TREE };

/** How many events the log tree holds: every sealed event. */
export async function logTreeSize(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('log_seals')
    .select('tree_size')
    .orderBy('seal_number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return Number(row?.tree_size ?? 0);
}

/** The log tree, as the tree store reads it: leaves from the seals holding them. */
export function logTree(db: Kysely<Database>): TreeSource {
  return {
    id: LOG_TREE,
    async leaves(from, to) {
      if (to < from) return [];
      const { rows } = await sql<{
        seal_number: number;
        tree_size: number;
        last_transaction_id: string;
        last_position: number;
      }>`
        SELECT seal_number, tree_size, last_transaction_id, last_position
        FROM log_seals
        WHERE seal_number BETWEEN
          (SELECT seal_number - 1 FROM log_seals WHERE tree_size >= ${from} ORDER BY tree_size LIMIT 1)
          AND (SELECT seal_number FROM log_seals WHERE tree_size >= ${to} ORDER BY tree_size LIMIT 1)
        ORDER BY seal_number`.execute(db);
      const last = rows.at(-1);
      if (!last || last.tree_size < to) return [];
      // The row before the first seal holding `from` (absent when that seal is the first).
      const first = rows[0]!.tree_size >= from ? undefined : rows[0];
      const start = first ? first.tree_size : 0;
      const events = await eventsInRange(
        db,
        { after: first ? sealEnd(first) : LOG_START, through: sealEnd(last) },
        undefined,
        { offset: from - start - 1, limit: to - from + 1 },
      );
      return events.map(eventLeafHash);
    },
  };
}

/** Runs `compute` (a proof, a root) over the log tree of `size` leaves (see overTree). */
export function overLogTree<T>(
  db: Kysely<Database>,
  size: number,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  return overTree(treeNodes(db), logTree(db), size, compute);
}

/** A sealed event's log tree index: size before its seal plus its place in it. */
export async function logLeafIndex(
  db: Kysely<Database>,
  event: RecordedEvent,
): Promise<number | undefined> {
  const sealNumber = await sealHolding(db, event);
  if (sealNumber === undefined) return undefined;
  const range = await sealRange(db, sealNumber);
  const size = await db
    .selectFrom('log_seals')
    .select('tree_size')
    .where('seal_number', '=', sealNumber)
    .executeTakeFirst();
  if (!range || !size) return undefined;
  // Events of the seal up to and including it: its place, counted from 1.
  const { rows: through } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM events
    WHERE ${inRange({ after: range.after, through: event })}`.execute(db);
  return Number(size.tree_size) - range.eventCount + Number(through[0]?.n ?? 1) - 1;
}
