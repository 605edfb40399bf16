import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { foldChain, GENESIS_HASH } from './chain-link.js';
import { sealEnd } from './chain-rows.js';
import { readLog } from '../event-store/read-log.js';
import { insertSpaceSeals, spaceChainTip, type Redact } from './space-chain.js';
import { LOG_START, type RecordedEvent } from '../event-store/types.js';
import { logTree, recordLogTreeSize } from './log-tree.js';
import { spaceLeaf } from './space-tree.js';
import { extendTree } from './tree-growth.js';

/** The last global seal, if any, and the log tree's size once it was in (log-tree.ts). */
export async function lastSeal(db: Kysely<Database>) {
  return db
    .selectFrom('event_seals as s')
    .leftJoin('log_tree_sizes as t', 't.seal_number', 's.seal_number')
    .select(['s.seal_number', 's.last_transaction_id', 's.last_position', 's.hash', 't.tree_size'])
    .orderBy('s.seal_number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Seals the events committed since the last seal, up to `batchSize` of them in commit-safe order,
 * as one range of the global chain (one row, however many events) and, with `redact`, one range of
 * each space's chain it touches; returns how many events it sealed. Runs after commit, off the
 * write path. Two sealers racing collide on seal_number and one rolls back: the chain never forks.
 */
export async function sealChain(
  db: Kysely<Database>,
  batchSize: number,
  /** With it, also extend each space's chain over the same range, when they are caught up. */
  redact?: Redact,
): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const tip = await lastSeal(trx);
      const page = await readLog(trx, { after: tip ? sealEnd(tip) : LOG_START, limit: batchSize });
      if (page.events.length === 0) return 0;
      // A seal never spans two partitions, so a partition can be archived with its seals whole.
      const { events, partitionStart } = withinOnePartition(
        page.events,
        await trx.selectFrom('event_partitions').select(['starts_at', 'ends_at']).execute(),
      );
      const last = events.at(-1)!;
      const previousHash = tip?.hash ?? GENESIS_HASH;
      const sealNumber = (tip?.seal_number ?? 0) + 1;
      // An event's leaf is the same in its space's tree and in the log tree: hashed once.
      const leaves = redact && events.map((event) => spaceLeaf(event, redact));
      // The space chains continue here only when they have caught up with the global chain (else
      // the backfill, sealSpaceChains, has work first).
      if (redact && leaves && (await spaceChainTip(trx)) === (tip?.seal_number ?? 0)) {
        await insertSpaceSeals(trx, sealNumber, events, redact, leaves);
      }
      const previousSize = Number(tip?.tree_size ?? 0);
      await trx
        .insertInto('event_seals')
        .values({
          seal_number: sealNumber,
          event_count: events.length,
          last_transaction_id: last.transactionId,
          last_position: last.globalPosition,
          previous_hash: previousHash,
          hash: foldChain(previousHash, events),
          partition_start: partitionStart,
        })
        .execute();
      await recordLogTreeSize(trx, sealNumber, previousSize + events.length);
      // The log tree grows here too (its leaves are the redacted events, so only with `redact`;
      // without, the next sealer that has it rebuilds the tree from the seals).
      if (redact && leaves) await extendTree(trx, logTree(trx, redact), previousSize, leaves);
      return events.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}

/**
 * The longest run from the start of `events` recorded in the partition of the first, and where
 * that partition starts (`-infinity` for the first, open-ended one).
 */
export function withinOnePartition(
  events: readonly RecordedEvent[],
  partitions: ReadonlyArray<{ readonly starts_at: Date; readonly ends_at: Date }>,
): { readonly events: readonly RecordedEvent[]; readonly partitionStart: Date | string } {
  const holding = (at: Date) =>
    partitions.find((p) => Number(p.starts_at) <= at.getTime() && at.getTime() < Number(p.ends_at));
  const first = holding(events[0]!.recordedAt);
  if (!first) return { events, partitionStart: '-infinity' };
  const end = events.findIndex((event) => holding(event.recordedAt) !== first);
  const start = Number(first.starts_at);
  return {
    events: end === -1 ? events : events.slice(0, end),
    partitionStart: Number.isFinite(start) ? new Date(start) : '-infinity',
  };
}
