import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { canonicalEventBytes, GENESIS_HASH } from './chain-link.js';
import { selectLinksWithEvents } from './chain-rows.js';
import { toRecordedEvent, type EventRow, type RecordedEvent } from './types.js';

/** Replaces what must not leave the database (secret hashes) by a digest of it. */
export type Redact = (event: RecordedEvent) => RecordedEvent;

/** hash = SHA-256(previous hash in the space || canonical bytes of the redacted event). */
export function spaceChainHash(previousHash: Buffer, redactedEvent: RecordedEvent): Buffer {
  return createHash('sha256')
    .update(previousHash)
    .update(canonicalEventBytes(redactedEvent))
    .digest();
}

/**
 * Extends every space's chain over the global chain's links not yet in one, in link order, and
 * returns how many it sealed. Each space's links are numbered 1, 2, 3... without gaps. Follows
 * the global chain, so it also covers events sealed before this chain existed. Two sealers
 * racing collide on the keys and one rolls back.
 */
export async function sealSpaceChains(
  db: Kysely<Database>,
  batchSize: number,
  redact: Redact,
): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const tip = await trx
        .selectFrom('space_chain')
        .select((eb) => eb.fn.max('link_number').as('link_number'))
        .executeTakeFirst();
      const rows = await selectLinksWithEvents(trx)
        .where('c.link_number', '>', Number(tip?.link_number ?? 0))
        .limit(batchSize)
        .execute();
      if (rows.length === 0) return 0;
      const spaces = [...new Set(rows.map((row) => row.space_id ?? ''))];
      const { rows: heads } = await sql<{ space_id: string; sequence: number; hash: Buffer }>`
        SELECT DISTINCT ON (space_id) space_id, sequence, hash FROM space_chain
        WHERE space_id = ANY(${spaces}::text[]) ORDER BY space_id, sequence DESC`.execute(trx);
      const head = new Map(heads.map((h) => [h.space_id, { sequence: h.sequence, hash: h.hash }]));
      const links = rows.map((row) => {
        if (row.event_id === null) {
          // The global chain has a link whose event is gone: someone deleted it behind the
          // triggers. Stop here, loudly; verify-chain names it.
          throw new Error(
            `event of chain link ${row.link_number} is missing; run npm run verify-chain`,
          );
        }
        const event = toRecordedEvent(row as unknown as EventRow);
        const previous = head.get(event.spaceId) ?? { sequence: 0, hash: GENESIS_HASH };
        const hash = spaceChainHash(previous.hash, redact(event));
        const link = {
          space_id: event.spaceId,
          sequence: previous.sequence + 1,
          link_number: row.link_number,
          global_position: event.globalPosition,
          previous_hash: previous.hash,
          hash,
        };
        head.set(event.spaceId, { sequence: link.sequence, hash });
        return link;
      });
      await sql`
        INSERT INTO space_chain (space_id, sequence, link_number, global_position, previous_hash, hash)
        SELECT * FROM unnest(${links.map((l) => l.space_id)}::text[],
          ${links.map((l) => l.sequence)}::bigint[], ${links.map((l) => l.link_number)}::bigint[],
          ${links.map((l) => l.global_position)}::bigint[],
          ${links.map((l) => l.previous_hash)}::bytea[], ${links.map((l) => l.hash)}::bytea[])`.execute(
        trx,
      );
      return links.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}

/** The head of each space's chain: its last sequence number and hash. */
export async function spaceChainHeads(
  db: Kysely<Database>,
): Promise<Array<{ space_id: string; sequence: number; hash: Buffer }>> {
  const { rows } = await sql<{ space_id: string; sequence: number; hash: Buffer }>`
    SELECT DISTINCT ON (space_id) space_id, sequence, hash FROM space_chain
    ORDER BY space_id, sequence DESC`.execute(db);
  return rows;
}
