import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * One line of an audit export of format 1 (made before issue 45; export-format.ts has format 2):
 * a seal of the space's chain (the range it covers and the hash it stored), an event with its
 * link in the chain, or a checkpoint. Tree heads and archived ranges are lines of both formats.
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
