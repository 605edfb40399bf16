import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { foldChain, GENESIS_HASH } from './chain-link.js';
import { eventsInRange, sealRange } from './chain-rows.js';
import type { RecordedEvent } from '../event-store/types.js';
import { spaceLeaf, spaceTree } from './space-tree.js';
import type { Hash } from '../transparency/merkle.js';
import { extendTree } from './tree-growth.js';

export type { Redact } from './redaction.js';
import type { Redact } from './redaction.js';

/**
 * Backfill: extends the space chains over the next global seal they do not cover yet (history
 * sealed before they existed, or while they were behind) and returns how many events it sealed.
 * Once caught up, the global sealer extends both itself and this finds nothing. Two sealers
 * racing collide on the keys and one rolls back.
 */
export async function sealSpaceChains(db: Kysely<Database>, redact: Redact): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      const sealNumber = (await spaceChainTip(trx)) + 1;
      const range = await sealRange(trx, sealNumber);
      if (!range) return 0;
      const seal = await trx
        .selectFrom('event_seals')
        .select(['previous_hash', 'hash'])
        .where('seal_number', '=', sealNumber)
        .executeTakeFirstOrThrow();
      const events = await eventsInRange(trx, range);
      if (
        events.length !== range.eventCount ||
        !foldChain(seal.previous_hash, events).equals(seal.hash)
      ) {
        // Someone changed the log behind the triggers. Stop here, loudly; verify-chain names it.
        throw new Error(
          `the events of seal ${sealNumber} do not match it; run npm run verify-chain`,
        );
      }
      await insertSpaceSeals(trx, sealNumber, events, redact);
      return events.length;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 0; // another sealer won this round
    throw error;
  }
}

/**
 * Inserts each space's share of global seal `sealNumber`: its events of `events` (the whole
 * range, in commit-safe order), numbered on from the space's head, folded over their redacted
 * form, one row per space the range touches; and extends each space's Merkle tree by them.
 */
export async function insertSpaceSeals(
  trx: Kysely<Database>,
  sealNumber: number,
  events: readonly RecordedEvent[],
  redact: Redact,
  /** The events' leaf hashes, when the caller has them (the log tree's are the same). */
  leaves: readonly Hash[] = events.map((event) => spaceLeaf(event, redact)),
): Promise<void> {
  const bySpace = new Map<string, RecordedEvent[]>();
  const leavesBySpace = new Map<string, Hash[]>();
  events.forEach((event, i) => {
    const list = bySpace.get(event.spaceId);
    if (list) {
      list.push(event);
      leavesBySpace.get(event.spaceId)!.push(leaves[i]!);
    } else {
      bySpace.set(event.spaceId, [event]);
      leavesBySpace.set(event.spaceId, [leaves[i]!]);
    }
  });
  if (bySpace.size === 0) return;
  // One backward index probe per space (DISTINCT ON would read every seal of the space).
  const { rows: heads } = await sql<{ space_id: string; last_sequence: number; hash: Buffer }>`
    SELECT s.space_id, h.last_sequence, h.hash
    FROM unnest(${[...bySpace.keys()]}::text[]) AS s(space_id)
    CROSS JOIN LATERAL (
      SELECT c.last_sequence, c.hash FROM space_seals c
      WHERE c.space_id = s.space_id ORDER BY c.last_sequence DESC LIMIT 1
    ) h`.execute(trx);
  const head = new Map(heads.map((h) => [h.space_id, h]));
  const rows = [...bySpace].map(([spaceId, spaceEvents]) => {
    const previous = head.get(spaceId) ?? { last_sequence: 0, hash: GENESIS_HASH };
    const positions = spaceEvents.map((event) => event.globalPosition);
    const times = spaceEvents.map((event) => event.recordedAt.getTime());
    return {
      space_id: spaceId,
      first_sequence: previous.last_sequence + 1,
      last_sequence: previous.last_sequence + spaceEvents.length,
      seal_number: sealNumber,
      min_position: Math.min(...positions),
      max_position: Math.max(...positions),
      first_recorded_at: new Date(Math.min(...times)),
      last_recorded_at: new Date(Math.max(...times)),
      previous_hash: previous.hash,
      hash: foldChain(previous.hash, spaceEvents.map(redact)),
    };
  });
  await trx.insertInto('space_seals').values(rows).execute();
  // Each space's Merkle tree grows by the same events, in the same transaction.
  for (const spaceId of bySpace.keys()) {
    const previousSize = Number(head.get(spaceId)?.last_sequence ?? 0);
    await extendTree(
      trx,
      spaceTree(trx, spaceId, redact),
      previousSize,
      leavesBySpace.get(spaceId)!,
    );
  }
}

/** The last global seal covered by the space chains (0 when none). */
export async function spaceChainTip(db: Kysely<Database>): Promise<number> {
  const tip = await db
    .selectFrom('space_seals')
    .select((eb) => eb.fn.max('seal_number').as('seal_number'))
    .executeTakeFirst();
  return Number(tip?.seal_number ?? 0);
}

/** The head of each space's chain: its last sequence number and hash. */
export async function spaceChainHeads(
  db: Kysely<Database>,
): Promise<Array<{ space_id: string; sequence: number; hash: Buffer }>> {
  // A skip scan over the primary key: one index probe per space, not a read of every seal.
  const { rows } = await sql<{ space_id: string; sequence: number; hash: Buffer }>`
    WITH RECURSIVE spaces(space_id) AS (
      (SELECT space_id FROM space_seals ORDER BY space_id LIMIT 1)
      UNION ALL
      SELECT (SELECT c.space_id FROM space_seals c WHERE c.space_id > spaces.space_id
              ORDER BY c.space_id LIMIT 1)
      FROM spaces WHERE spaces.space_id IS NOT NULL
    )
    SELECT s.space_id, h.last_sequence AS sequence, h.hash
    FROM spaces s
    CROSS JOIN LATERAL (
      SELECT c.last_sequence, c.hash FROM space_seals c
      WHERE c.space_id = s.space_id ORDER BY c.last_sequence DESC LIMIT 1
    ) h
    WHERE s.space_id IS NOT NULL
    ORDER BY s.space_id`.execute(db);
  return rows;
}
