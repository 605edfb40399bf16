import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { canonicalEventBytes, chainHash } from './chain-link.js';
import { eventsInRange, sealRange } from './chain-rows.js';
import type { Redact } from './space-chain.js';

/**
 * One line of an audit export: a seal of the space's chain (the range it covers and the hash it
 * stored), an event with its link in the chain (computed from the seal's previous hash), or a
 * checkpoint.
 */
export type ExportLine =
  | {
      readonly type: 'seal';
      readonly first_sequence: number;
      readonly last_sequence: number;
      readonly previous_hash: string;
      readonly hash: string;
    }
  | {
      readonly type: 'event';
      readonly sequence: number;
      readonly previous_hash: string;
      readonly hash: string;
      /** The event exactly as its link covers it: canonical, secret hashes replaced by a digest. */
      readonly event: Record<string, unknown>;
    }
  | { readonly type: 'checkpoint'; readonly jws: string };

/**
 * A space's sealed events recorded in [from, to), in its chain's order (sequence 1, 2, 3...): each
 * seal they belong to, then its events with their links, then the signed checkpoints whose heads
 * are among those events. Unsealed events (the last second or so) are not exported.
 */
export async function* exportSpaceChain(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly from: Date;
    readonly to: Date;
    readonly redact: Redact;
    readonly pageSize?: number;
  },
): AsyncGenerator<ExportLine> {
  let after = 0;
  let first: number | undefined;
  let last: number | undefined;
  for (;;) {
    const seals = await db
      .selectFrom('space_seals')
      .selectAll()
      .where('space_id', '=', options.spaceId)
      .where('last_recorded_at', '>=', options.from)
      .where('first_recorded_at', '<', options.to)
      .where('last_sequence', '>', after)
      .orderBy('last_sequence')
      .limit(Math.max(1, Math.floor((options.pageSize ?? 1000) / 10)))
      .execute();
    if (seals.length === 0) break;
    for (const seal of seals) {
      after = seal.last_sequence;
      const range = await sealRange(db, seal.seal_number);
      if (!range) continue;
      yield {
        type: 'seal',
        first_sequence: seal.first_sequence,
        last_sequence: seal.last_sequence,
        previous_hash: seal.previous_hash.toString('hex'),
        hash: seal.hash.toString('hex'),
      };
      const events = await eventsInRange(db, range, {
        spaceId: options.spaceId,
        minPosition: seal.min_position,
        maxPosition: seal.max_position,
      });
      // Links are recomputed from the events as stored: an event changed behind the triggers
      // yields links that no longer end at the seal's hash, and the verifier says so.
      let previous = seal.previous_hash;
      let sequence = seal.first_sequence - 1;
      for (const stored of events) {
        const event = options.redact(stored);
        const hash = chainHash(previous, event);
        sequence += 1;
        if (event.recordedAt >= options.from && event.recordedAt < options.to) {
          yield {
            type: 'event',
            sequence,
            previous_hash: previous.toString('hex'),
            hash: hash.toString('hex'),
            event: JSON.parse(canonicalEventBytes(event).toString('utf8')) as Record<
              string,
              unknown
            >,
          };
          first ??= sequence;
          last = sequence;
        }
        previous = hash;
      }
    }
  }
  if (first === undefined || last === undefined) return;
  // Chosen by the head each checkpoint signed, not by a timestamp anyone with the database could
  // edit: every checkpoint whose head is one of the exported events.
  const checkpoints = await db
    .selectFrom('audit_checkpoints')
    .select('jws')
    .where('space_id', '=', options.spaceId)
    .where('sequence', '>=', first)
    .where('sequence', '<=', last)
    .orderBy('checkpoint_number')
    .execute();
  for (const { jws } of checkpoints) yield { type: 'checkpoint', jws };
}
