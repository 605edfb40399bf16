import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { foldChain, GENESIS_HASH } from './chain-link.js';
import { sealEnd } from './chain-rows.js';
import { readLog } from '../event-store/read-log.js';
import { insertSpaceSeals, spaceChainTip, type Redact } from './space-chain.js';
import { LOG_START } from '../event-store/types.js';

/** The last global seal, if any. */
export async function lastSeal(db: Kysely<Database>) {
  return db
    .selectFrom('event_seals')
    .select(['seal_number', 'last_transaction_id', 'last_position', 'hash'])
    .orderBy('seal_number', 'desc')
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
      const last = page.events.at(-1);
      if (!last) return 0;
      const previousHash = tip?.hash ?? GENESIS_HASH;
      const sealNumber = (tip?.seal_number ?? 0) + 1;
      // The space chains continue here only when they have caught up with the global chain (else
      // the backfill, sealSpaceChains, has work first).
      if (redact && (await spaceChainTip(trx)) === (tip?.seal_number ?? 0)) {
        await insertSpaceSeals(trx, sealNumber, page.events, redact);
      }
      await trx
        .insertInto('event_seals')
        .values({
          seal_number: sealNumber,
          event_count: page.events.length,
          last_transaction_id: last.transactionId,
          last_position: last.globalPosition,
          previous_hash: previousHash,
          hash: foldChain(previousHash, page.events),
        })
        .execute();
      return page.events.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}
