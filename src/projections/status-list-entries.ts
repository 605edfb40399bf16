import { sql, type Kysely } from 'kysely';
import { inRange } from '#event-log/log-range.js';
import type { Database } from '../db/schema.js';
import { TOKEN_ISSUANCES } from '../domain/token/issuances.js';
import type { Projection } from './projection.js';

const ISSUANCES = Object.keys(TOKEN_ISSUANCES);

/**
 * Each issued token's entry in its space's status list, with its event as stored: a list is built
 * from them (commands/token/status-list.ts). Insert-only: a range read again inserts nothing new.
 */
export const statusListEntriesProjection: Projection = {
  name: 'status-list-entries',
  async applyRange(trx, range) {
    await sql`
      INSERT INTO status_list_entries
        (space_id, list_id, idx, stream_id, event_type, data, expires_at)
      SELECT e.space_id, e.data->'status'->>'list', (e.data->'status'->>'idx')::int, e.stream_id,
             e.event_type, e.data,
             CASE jsonb_typeof(e.data->'expires_at')
               WHEN 'number' THEN to_timestamp((e.data->>'expires_at')::double precision)
               ELSE (e.data->>'expires_at')::timestamptz END
      FROM events e
      WHERE ${inRange(range, 'e')} AND e.event_type = ANY(${ISSUANCES}::text[])
        AND e.data ? 'status'
      ON CONFLICT DO NOTHING`.execute(trx);
  },
  // Rows leave only through the purge of expired ones: a rebuild inserts what is missing.
  async reset() {},
};

/** A stored entry: its index and its token's issuance event as the log stores it. */
export interface StatusListEntry {
  readonly idx: number;
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
}

/** The entries of one list of a space, however many (at most the list's size). */
export async function statusListEntries(
  db: Kysely<Database>,
  spaceId: string,
  listId: string,
): Promise<StatusListEntry[]> {
  const rows = await db
    .selectFrom('status_list_entries')
    .select(['idx', 'stream_id', 'event_type', 'data'])
    .where('space_id', '=', spaceId)
    .where('list_id', '=', listId)
    .execute();
  return rows.map((row) => ({
    idx: row.idx,
    streamId: row.stream_id,
    type: row.event_type,
    data: row.data,
  }));
}
