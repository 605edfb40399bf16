import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { canonicalEventBytes, GENESIS_HASH } from './chain-link.js';
import { selectLinksWithEvents } from './chain-rows.js';
import { toRecordedEvent, type EventRow, type RecordedEvent } from '../event-store/types.js';

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
 * Backfill: extends every space's chain over global links not yet in one (events sealed before
 * the space chains existed), in link order, and returns how many it sealed. Once caught up, the
 * global sealer extends both chains itself and this finds nothing. Each space's links are numbered 1, 2, 3... without gaps. Follows
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
      const rows = await selectLinksWithEvents(trx)
        .where('c.link_number', '>', await spaceChainTip(trx))
        .limit(batchSize)
        .execute();
      if (rows.length === 0) return 0;
      const sealed = rows.map((row) => {
        if (row.event_id === null) {
          // The global chain has a link whose event is gone: someone deleted it behind the
          // triggers. Stop here, loudly; verify-chain names it.
          throw new Error(
            `event of chain link ${row.link_number} is missing; run npm run verify-chain`,
          );
        }
        return { linkNumber: row.link_number, event: toRecordedEvent(row as unknown as EventRow) };
      });
      const links = await insertSpaceLinks(trx, sealed, redact);
      return links.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}

/**
 * Computes and inserts the space-chain links of `sealed` (events with their global link number,
 * in link order), continuing each space's chain from its head. Shared by the backfill above and
 * by the global sealer, which seals both chains from the one page of the log it read.
 */
export async function insertSpaceLinks(
  trx: Kysely<Database>,
  sealed: ReadonlyArray<{ readonly linkNumber: number; readonly event: RecordedEvent }>,
  redact: Redact,
): Promise<SpaceLink[]> {
  if (sealed.length === 0) return [];
  const spaces = [...new Set(sealed.map(({ event }) => event.spaceId))];
  // One backward index probe per space (DISTINCT ON would read every link of the space).
  const { rows: heads } = await sql<{ space_id: string; sequence: number; hash: Buffer }>`
    SELECT s.space_id, h.sequence, h.hash
    FROM unnest(${spaces}::text[]) AS s(space_id)
    CROSS JOIN LATERAL (
      SELECT c.sequence, c.hash FROM space_chain c
      WHERE c.space_id = s.space_id ORDER BY c.sequence DESC LIMIT 1
    ) h`.execute(trx);
  const head = new Map(heads.map((h) => [h.space_id, { sequence: h.sequence, hash: h.hash }]));
  const links = sealed.map(({ linkNumber, event }) => {
    const previous = head.get(event.spaceId) ?? { sequence: 0, hash: GENESIS_HASH };
    const hash = spaceChainHash(previous.hash, redact(event));
    head.set(event.spaceId, { sequence: previous.sequence + 1, hash });
    return {
      space_id: event.spaceId,
      sequence: previous.sequence + 1,
      link_number: linkNumber,
      global_position: event.globalPosition,
      previous_hash: previous.hash,
      hash,
    };
  });
  await sql`
    INSERT INTO space_chain (space_id, sequence, link_number, global_position, previous_hash, hash)
    SELECT * FROM unnest(${links.map((l) => l.space_id)}::text[],
      ${links.map((l) => l.sequence)}::bigint[], ${links.map((l) => l.link_number)}::bigint[],
      ${links.map((l) => l.global_position)}::bigint[],
      ${links.map((l) => l.previous_hash)}::bytea[], ${links.map((l) => l.hash)}::bytea[])`.execute(
    trx,
  );
  return links;
}

/** One link of a space's chain. */
export interface SpaceLink {
  readonly space_id: string;
  readonly sequence: number;
  readonly link_number: number;
  readonly global_position: number;
  readonly previous_hash: Buffer;
  readonly hash: Buffer;
}

/** The last global link number covered by the space chains (0 when none). */
export async function spaceChainTip(db: Kysely<Database>): Promise<number> {
  const tip = await db
    .selectFrom('space_chain')
    .select((eb) => eb.fn.max('link_number').as('link_number'))
    .executeTakeFirst();
  return Number(tip?.link_number ?? 0);
}

/** The head of each space's chain: its last sequence number and hash. */
export async function spaceChainHeads(
  db: Kysely<Database>,
): Promise<Array<{ space_id: string; sequence: number; hash: Buffer }>> {
  // A skip scan over the primary key: one index probe per space, not a read of every link.
  const { rows } = await sql<{ space_id: string; sequence: number; hash: Buffer }>`
    WITH RECURSIVE spaces(space_id) AS (
      (SELECT space_id FROM space_chain ORDER BY space_id LIMIT 1)
      UNION ALL
      SELECT (SELECT c.space_id FROM space_chain c WHERE c.space_id > spaces.space_id
              ORDER BY c.space_id LIMIT 1)
      FROM spaces WHERE spaces.space_id IS NOT NULL
    )
    SELECT s.space_id, h.sequence, h.hash
    FROM spaces s
    CROSS JOIN LATERAL (
      SELECT c.sequence, c.hash FROM space_chain c
      WHERE c.space_id = s.space_id ORDER BY c.sequence DESC LIMIT 1
    ) h
    WHERE s.space_id IS NOT NULL
    ORDER BY s.space_id`.execute(db);
  return rows;
}
