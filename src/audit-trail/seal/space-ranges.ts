import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { eventsInRange, sealRange } from './seal-ranges.js';
import type { RecordedEvent } from '#event-log/types.js';
import { spaceTree } from './space-tree.js';
import { eventLeafHash } from '../event-leaf.js';
import type { Hash } from '#audit-log/transparency/merkle.js';
import { extendTree } from '#audit-log/tree/tree-growth.js';
import { spaceRange, spaceShares } from '#audit-log/tree/space-shares.js';
import { treeNodes } from './tree-store.js';

/** Each space's share of a seal, numbered on from its last without gaps (leaf i is sequence i + 1). */

/** Inserts each space's share of seal `sealNumber` and extends its tree, in the sealing transaction. */
export async function insertSpaceRanges(
  trx: Kysely<Database>,
  sealNumber: number,
  events: readonly RecordedEvent[],
  /** The events' leaf hashes, when the caller has them (the log tree's are the same). */
  leaves: readonly Hash[] = events.map(eventLeafHash),
): Promise<void> {
  const bySpace = spaceShares(events, leaves);
  if (bySpace.size === 0) return;
  // One backward index probe per space (DISTINCT ON would read every range of the space).
  const { rows: heads } = await sql<{ space_id: string; last_sequence: number }>`
    SELECT s.space_id, h.last_sequence
    FROM unnest(${[...bySpace.keys()]}::text[]) AS s(space_id)
    CROSS JOIN LATERAL (
      SELECT c.last_sequence FROM space_ranges c
      WHERE c.space_id = s.space_id ORDER BY c.last_sequence DESC LIMIT 1
    ) h`.execute(trx);
  const head = new Map(heads.map((h) => [h.space_id, Number(h.last_sequence)]));
  const rows = [...bySpace].map(([spaceId, share]) => ({
    space_id: spaceId,
    seal_number: sealNumber,
    ...spaceRange(share, head.get(spaceId) ?? 0),
  }));
  await trx.insertInto('space_ranges').values(rows).execute();
  for (const [spaceId, share] of bySpace) {
    await extendTree(treeNodes(trx), spaceTree(trx, spaceId), head.get(spaceId) ?? 0, share.leaves);
  }
}

/** The last seal the space ranges cover (0 when none). */
export async function spaceRangeTip(db: Kysely<Database>): Promise<number> {
  const tip = await db
    .selectFrom('space_ranges')
    .select((eb) => eb.fn.max('seal_number').as('seal_number'))
    .executeTakeFirst();
  return Number(tip?.seal_number ?? 0);
}

/** Fills a lagging seal's space ranges; a wrong count means the log changed. */
export async function backfillSpaceRanges(
  trx: Kysely<Database>,
  sealNumber: number,
): Promise<number> {
  const range = await sealRange(trx, sealNumber);
  if (!range) return 0;
  const events = await eventsInRange(trx, range);
  if (events.length !== range.eventCount) {
    throw new Error(
      `seal ${sealNumber} holds ${range.eventCount} events, the log ${events.length}; run npm run verify-chain`,
    );
  }
  await insertSpaceRanges(trx, sealNumber, events);
  return events.length;
}

/** The last sequence of each space's tree, skipping from space to space over the primary key. */
export async function spaceTreeSizes(
  db: Kysely<Database>,
): Promise<Array<{ space_id: string; size: number }>> {
  // A skip scan: one index probe per space, not a read of every range.
  const { rows } = await sql<{ space_id: string; size: string }>`
    WITH RECURSIVE spaces(space_id) AS (
      (SELECT space_id FROM space_ranges ORDER BY space_id LIMIT 1)
      UNION ALL
      SELECT (SELECT c.space_id FROM space_ranges c WHERE c.space_id > spaces.space_id
              ORDER BY c.space_id LIMIT 1)
      FROM spaces WHERE spaces.space_id IS NOT NULL
    )
    SELECT s.space_id, h.last_sequence AS size
    FROM spaces s
    CROSS JOIN LATERAL (
      SELECT c.last_sequence FROM space_ranges c
      WHERE c.space_id = s.space_id ORDER BY c.last_sequence DESC LIMIT 1
    ) h
    WHERE s.space_id IS NOT NULL
    ORDER BY s.space_id`.execute(db);
  return rows.map((row) => ({ space_id: row.space_id, size: Number(row.size) }));
}
