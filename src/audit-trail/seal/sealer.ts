import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { sealEnd } from './seal-ranges.js';
import { readLog } from '#event-log/read-log.js';
import { LOG_START } from '#event-log/types.js';
import { withinOnePartition } from '#audit-log/archive/within-one-partition.js';
import { logTree } from './log-tree.js';
import { eventLeafHash } from '../event-leaf.js';
import { extendTree } from '#audit-log/tree/tree-growth.js';
import { treeNodes } from './tree-store.js';
import { backfillSpaceRanges, insertSpaceRanges, spaceRangeTip } from './space-ranges.js';

/**
 * The sealer (issue 45: the Merkle log is the evidence): it grows the trees, nothing else. Each
 * round takes the events committed since the last seal, in commit-safe order, records the range
 * (log_seals: where it ends, how many, the log tree's size after it), each space's share of it
 * (space_ranges), and appends their leaves to the log tree and to each space's tree, in one
 * transaction. What an edit has to match is the roots the audit key signs (tree-head-signing.ts).
 */

/** The last seal, if any: where it ends and the log tree's size once it was in. */
export async function lastSeal(db: Kysely<Database>) {
  return db
    .selectFrom('log_seals')
    .select(['seal_number', 'last_transaction_id', 'last_position', 'tree_size'])
    .orderBy('seal_number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Seals the events committed since the last seal, up to `batchSize` of them in commit-safe order,
 * as one range (one row, however many events), growing the log tree and each space's tree by
 * them; returns how many events it sealed. Runs after commit, off the write path. Two sealers
 * racing collide on seal_number and one rolls back: the trees never fork.
 */
export async function sealLog(db: Kysely<Database>, batchSize: number): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const tip = await lastSeal(trx);
      // Space ranges behind the log's (a database whose space chains lagged when migration 034
      // copied them): caught up first, one seal a round, so sequences never skip an event.
      const spacesThrough = await spaceRangeTip(trx);
      if (spacesThrough < Number(tip?.seal_number ?? 0)) {
        return backfillSpaceRanges(trx, spacesThrough + 1);
      }
      const page = await readLog(trx, { after: tip ? sealEnd(tip) : LOG_START, limit: batchSize });
      if (page.events.length === 0) return 0;
      // A seal never spans two partitions, so a partition can be archived with its seals whole.
      const { events, partitionStart } = withinOnePartition(
        page.events,
        await trx.selectFrom('event_partitions').select(['starts_at', 'ends_at']).execute(),
      );
      const last = events.at(-1)!;
      const sealNumber = (tip?.seal_number ?? 0) + 1;
      const previousSize = Number(tip?.tree_size ?? 0);
      // An event's leaf is the same in its space's tree and in the log tree: hashed once.
      const leaves = events.map(eventLeafHash);
      await trx
        .insertInto('log_seals')
        .values({
          seal_number: sealNumber,
          event_count: events.length,
          last_transaction_id: last.transactionId,
          last_position: last.globalPosition,
          partition_start: partitionStart,
          tree_size: previousSize + events.length,
        })
        .execute();
      await insertSpaceRanges(trx, sealNumber, events, leaves);
      await extendTree(treeNodes(trx), logTree(trx), previousSize, leaves);
      return events.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}
