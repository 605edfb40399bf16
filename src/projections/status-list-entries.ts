import { sql, type Kysely } from 'kysely';
import { inRange } from '#event-log/log-range.js';
import type { Database } from '../db/schema.js';
import { TOKEN_ISSUANCES } from '../domain/token/issuances.js';
import type { Projection } from './projection.js';

const ISSUANCES = Object.keys(TOKEN_ISSUANCES);

/**
 * What an entry does not keep of its event: nothing a token's standing is judged by, and whom it
 * is for stays in the log alone (a smaller row, less WAL per token, no customer id copied).
 */
export const UNJUDGED_FIELDS = [
  'customer_id',
  'segment_id',
  'may_act',
  'may_act_scope',
  'authorization_details',
  'narrowed_details',
  'narrowed',
  'cnf_jkt',
  'metadata_document',
  'issued_at',
  'status',
] as const;

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
             e.event_type,
             -- The trusted issuer's subject is whom the token is for too: only its rule is judged.
             e.data - ${UNJUDGED_FIELDS}::text[] #- '{assertion,sub}' #- '{assertion,jti}',
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

/** What a list is judged from, read by the API (its port, `StatusListReads`). */
export function statusListReads(db: Kysely<Database>) {
  return {
    entries: (spaceId: string, listId: string) => statusListEntries(db, spaceId, listId),
    /** Which of `jtis` are revoked: a query per 5,000, bounded by the list, not the space. */
    async revokedAmong(jtis: readonly string[]): Promise<ReadonlySet<string>> {
      const revoked = new Set<string>();
      for (let start = 0; start < jtis.length; start += 5000) {
        const rows = await db
          .selectFrom('token_revocations')
          .select('jti')
          .where('jti', '=', sql<string>`ANY(${jtis.slice(start, start + 5000)}::text[])`)
          .execute();
        for (const row of rows) revoked.add(row.jti);
      }
      return revoked;
    },
    /** Whether an admin ended the space's switch-over: its shared-ring tokens speak no more. */
    async switchOverEnded(spaceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('ended_switch_overs')
        .select('space_id')
        .where('space_id', '=', spaceId)
        .executeTakeFirst();
      return row !== undefined;
    },
    /** How far behind the log the entries are: the age of the oldest event not yet projected. */
    async lagSeconds(): Promise<number> {
      const { rows } = await sql<{ behind: number }>`
        SELECT EXTRACT(EPOCH FROM now() - e.recorded_at)::float8 AS behind
        FROM (SELECT '0'::xid8 AS transaction_id, 0::bigint AS global_position
              WHERE NOT EXISTS (SELECT 1 FROM projection_checkpoints
                                WHERE projection = ${statusListEntriesProjection.name})
              UNION ALL
              SELECT transaction_id, global_position FROM projection_checkpoints
              WHERE projection = ${statusListEntriesProjection.name}) p
        CROSS JOIN LATERAL (
          SELECT e.recorded_at FROM events e
          WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position)
          ORDER BY e.transaction_id, e.global_position LIMIT 1) e`.execute(db);
      return Math.max(0, rows[0]?.behind ?? 0);
    },
  };
}
