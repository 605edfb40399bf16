import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { EVENT_COLUMNS } from '../event-store/types.js';

/** The event columns of `events` aliased `e`, for queries that join it to a chain. */
export const JOINED_EVENT_COLUMNS = EVENT_COLUMNS.map(
  (column) => `e.${column}` as `e.${(typeof EVENT_COLUMNS)[number]}`,
);

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
      ...JOINED_EVENT_COLUMNS,
    ])
    .orderBy('c.link_number');
}
