import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ArchivedLine } from '#audit-log/export-lines.js';

/** An open range's bounds, as dates both JavaScript and Postgres hold. */
export const BEGINNING = new Date('0001-01-01T00:00:00Z');
export const END = new Date('9999-12-31T23:59:59Z');

/** The space's archived ranges that overlap [from, to), oldest first, as export lines. */
export async function archivedOverlapping(
  db: Kysely<Database>,
  options: { readonly spaceId: string; readonly from: Date; readonly to: Date },
): Promise<ArchivedLine[]> {
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
