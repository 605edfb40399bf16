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

/** The sealer grows the log and space trees; an edit must match the signed roots. */

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
 * Seals up to `batchSize` events since the last seal as one range, off the write path; returns how
 * many. Racing sealers collide on seal_number and one rolls back: the trees never fork.
 */
export async function sealLog(db: Kysely<Database>, batchSize: number): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const tip = await lastSeal(trx);
      // Lagging space ranges catch up first, one seal a round, so sequences never skip an event.
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
