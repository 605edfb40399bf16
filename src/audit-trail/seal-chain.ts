import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { chainHash, GENESIS_HASH } from './chain-link.js';
import { readLog } from '../event-store/read-log.js';
import { insertSpaceLinks, spaceChainTip, type Redact } from './space-chain.js';
import { LOG_START } from '../event-store/types.js';

/**
 * Extends the global hash chain (and, with `redact`, each space's chain) over events committed since the last link, in commit-safe order, and
 * returns how many it sealed. Runs after commit, off the write path, so appends never queue behind
 * it. Two sealers racing collide on link_number and one rolls back: the chain never forks.
 */
export async function sealChain(
  db: Kysely<Database>,
  batchSize: number,
  /** With it, also extend each space's chain from the same page, when they are caught up. */
  redact?: Redact,
): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const tip = await trx
        .selectFrom('event_chain')
        .select(['link_number', 'transaction_id', 'global_position', 'hash'])
        .orderBy('link_number', 'desc')
        .limit(1)
        .executeTakeFirst();
      const page = await readLog(trx, {
        after: tip
          ? { transactionId: tip.transaction_id, globalPosition: tip.global_position }
          : LOG_START,
        limit: batchSize,
      });
      if (page.events.length === 0) return 0;
      let previous = tip?.hash ?? GENESIS_HASH;
      let linkNumber = tip?.link_number ?? 0;
      const links = page.events.map((event) => {
        const hash = chainHash(previous, event);
        const link = {
          link_number: ++linkNumber,
          space_id: event.spaceId,
          global_position: event.globalPosition,
          transaction_id: event.transactionId,
          previous_hash: previous,
          hash,
        };
        previous = hash;
        return link;
      });
      // Both chains from the one page read: the space chains continue here only when they have
      // caught up with the global chain (else the backfill, sealSpaceChains, has work first).
      if (redact && (await spaceChainTip(trx)) === (tip?.link_number ?? 0)) {
        await insertSpaceLinks(
          trx,
          links.map((link, index) => ({
            linkNumber: link.link_number,
            event: page.events[index]!,
          })),
          redact,
        );
      }
      await sql`
        INSERT INTO event_chain (link_number, space_id, global_position, transaction_id,
                                 previous_hash, hash)
        SELECT * FROM unnest(${links.map((l) => l.link_number)}::bigint[],
          ${links.map((l) => l.space_id)}::text[], ${links.map((l) => l.global_position)}::bigint[],
          ${links.map((l) => l.transaction_id)}::xid8[], ${links.map((l) => l.previous_hash)}::bytea[],
          ${links.map((l) => l.hash)}::bytea[])`.execute(trx);
      return links.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}
