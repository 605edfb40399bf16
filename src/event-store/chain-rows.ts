import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Chain links joined to the events they seal, in one shape for the verifier and the export.
 * A left join, so a link whose event is gone still shows up (with null event columns).
 */
export function selectLinksWithEvents(db: Kysely<Database>) {
  return db
    .selectFrom('event_chain as c')
    .leftJoin('events as e', (join) =>
      join
        .onRef('e.space_id', '=', 'c.space_id')
        .onRef('e.global_position', '=', 'c.global_position'),
    )
    .select([
      'c.link_number',
      'c.global_position as link_position',
      'c.previous_hash',
      'c.hash',
      'e.global_position',
      'e.transaction_id',
      'e.space_id',
      'e.stream_id',
      'e.stream_position',
      'e.event_id',
      'e.event_type',
      'e.schema_version',
      'e.data',
      'e.metadata',
      'e.recorded_at',
    ])
    .orderBy('c.link_number');
}
