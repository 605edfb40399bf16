import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { canonicalEventBytes } from './chain-link.js';
import { JOINED_EVENT_COLUMNS } from './chain-rows.js';
import type { Redact } from './space-chain.js';
import { toRecordedEvent, type EventRow } from '../event-store/types.js';

/** One line of an audit export: an event with its link in the space's chain, or a checkpoint. */
export type ExportLine =
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
 * A space's sealed events recorded in [from, to), in its chain's order (sequence 1, 2, 3...), each
 * with its link, then the signed checkpoints whose heads are among those events. Unsealed events (the last second
 * or so) are not exported. `onRow` is told of each line (audit reads count what they returned).
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
  for (;;) {
    const rows = await db
      .selectFrom('space_chain as s')
      .innerJoin('events as e', (join) =>
        join
          .onRef('e.space_id', '=', 's.space_id')
          .onRef('e.global_position', '=', 's.global_position'),
      )
      .select(['s.sequence', 's.previous_hash', 's.hash', ...JOINED_EVENT_COLUMNS])
      .where('s.space_id', '=', options.spaceId)
      .where('e.recorded_at', '>=', options.from)
      .where('e.recorded_at', '<', options.to)
      .where('s.sequence', '>', after)
      .orderBy('s.sequence')
      .limit(options.pageSize ?? 1000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const event = options.redact(toRecordedEvent(row as unknown as EventRow));
      yield {
        type: 'event',
        sequence: row.sequence,
        previous_hash: row.previous_hash.toString('hex'),
        hash: row.hash.toString('hex'),
        event: JSON.parse(canonicalEventBytes(event).toString('utf8')) as Record<string, unknown>,
      };
      first ??= row.sequence;
      after = row.sequence;
    }
  }
  if (first === undefined) return;
  // Chosen by the head each checkpoint signed, not by a timestamp anyone with the database could
  // edit: every checkpoint whose head is one of the exported events.
  const checkpoints = await db
    .selectFrom('audit_checkpoints')
    .select('jws')
    .where('space_id', '=', options.spaceId)
    .where('sequence', '>=', first)
    .where('sequence', '<=', after)
    .orderBy('checkpoint_number')
    .execute();
  for (const { jws } of checkpoints) yield { type: 'checkpoint', jws };
}
