import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { canonicalEventBytes, chainHash } from './chain-link.js';
import { eventsInRange, sealRange } from './chain-rows.js';
import type { Redact } from './space-chain.js';
import { listTreeHeads } from './tree-heads.js';

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
  | { readonly type: 'checkpoint'; readonly jws: string }
  /** A signed head of the space's Merkle tree (a C2SP checkpoint note, with its cosignatures). */
  | { readonly type: 'tree-head'; readonly tree_size: number; readonly checkpoint: string }
  /** Part of the range is no longer in the database: these events are in this archive file. */
  | {
      readonly type: 'archived';
      readonly from: string;
      readonly to: string;
      readonly file: string;
      readonly sha256: string;
      readonly events: number;
      readonly first_sequence: number | null;
      readonly last_sequence: number | null;
    };

/**
 * A space's sealed events recorded in [from, to), in its chain's order (sequence 1, 2, 3...): each
 * seal they belong to, then its events with their links, then the signed checkpoints whose heads
 * are among those events, then the space tree's signed heads of those sizes. Unsealed events (the last second or so) are not exported.
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
  // No silent holes: what of the range was archived comes first, naming its files.
  for (const range of await archivedOverlapping(db, options)) yield range;
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
      const events = await eventsInRange(db, range, {
        spaceId: options.spaceId,
        minPosition: seal.min_position,
        maxPosition: seal.max_position,
      });
      if (events.length === 0) continue; // archived: named by an `archived` line above
      yield {
        type: 'seal',
        first_sequence: seal.first_sequence,
        last_sequence: seal.last_sequence,
        previous_hash: seal.previous_hash.toString('hex'),
        hash: seal.hash.toString('hex'),
      };
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
  // The space tree's signed heads whose size ends among the exported events, cosigned or not.
  for (const head of await listTreeHeads(db, options.spaceId, first, last)) {
    yield { type: 'tree-head', tree_size: head.size, checkpoint: head.note };
  }
}

/** An open range's bounds, as dates both JavaScript and Postgres hold. */
export const BEGINNING = new Date('0001-01-01T00:00:00Z');
export const END = new Date('9999-12-31T23:59:59Z');

/** The space's archived ranges that overlap [from, to), oldest first, as export lines. */
export async function archivedOverlapping(
  db: Kysely<Database>,
  options: { readonly spaceId: string; readonly from: Date; readonly to: Date },
): Promise<Array<Extract<ExportLine, { type: 'archived' }>>> {
  const rows = await db
    .selectFrom('archived_ranges')
    .selectAll()
    .where('space_id', '=', options.spaceId)
    .where('ends_at', '>', options.from)
    .where('starts_at', '<', options.to)
    .orderBy('ends_at')
    .execute();
  return rows.map((row) => ({
    type: 'archived',
    from: Number.isFinite(Number(row.starts_at)) ? row.starts_at.toISOString() : '-infinity',
    to: row.ends_at.toISOString(),
    file: row.file,
    sha256: row.sha256,
    events: row.event_count,
    first_sequence: row.first_sequence,
    last_sequence: row.last_sequence,
  }));
}
