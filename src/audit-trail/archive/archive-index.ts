import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { TILE } from '#audit-log/transparency/frontier.js';
import {
  archiveKey,
  type ArchiveBlock,
  type ArchiveKey,
  type ArchivedBlock,
  type ArchivedLeafId,
} from '#audit-log/archive/blocks.js';

/** The archive's index: which gzip member holds each tile, which sequence each id is. */

/** Postgres takes at most 65535 parameters a statement; three a key row. */
const KEYS_PER_INSERT = 10_000;

/** Records one archive file's index, in the transaction that records its range. */
export async function recordArchiveIndex(
  trx: Kysely<Database>,
  written: {
    readonly partition: string;
    readonly spaceId: string;
    readonly file: string;
    readonly blocks: readonly ArchiveBlock[];
    readonly keys: readonly ArchiveKey[];
  },
): Promise<void> {
  if (written.blocks.length > 0) {
    await trx
      .insertInto('archived_blocks')
      .values(
        written.blocks.map((block) => ({
          ...block,
          space_id: written.spaceId,
          partition_name: written.partition,
          file: written.file,
        })),
      )
      .execute();
  }
  for (let at = 0; at < written.keys.length; at += KEYS_PER_INSERT) {
    await trx
      .insertInto('archived_leaf_keys')
      .values(
        written.keys
          .slice(at, at + KEYS_PER_INSERT)
          .map(({ key, sequence }) => ({ space_id: written.spaceId, key, sequence })),
      )
      .execute();
  }
}

/** An archived event's (or stream's first event's) sequence: one probe, ours or not. */
export async function archivedSequenceOf(
  db: Kysely<Database>,
  spaceId: string,
  which: ArchivedLeafId,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('archived_leaf_keys')
    .select('sequence')
    .where('space_id', '=', spaceId)
    .where('key', '=', archiveKey(which))
    .executeTakeFirst();
  return row ? Number(row.sequence) : undefined;
}

/** An archive file's member that holds some of a space's archived sequences, as indexed. */
export type ArchivedBlockRow = ArchivedBlock;

/** Members holding sequences `from`..`to`; a member never spans tiles, so a bounded key range. */
export async function archivedBlocks(
  db: Kysely<Database>,
  spaceId: string,
  from: number,
  to: number,
): Promise<ArchivedBlockRow[]> {
  const rows = await db
    .selectFrom('archived_blocks')
    .select(['file', 'first_sequence', 'last_sequence', 'byte_offset', 'byte_length', 'sha256'])
    .where('space_id', '=', spaceId)
    .where('first_sequence', '>=', Math.floor((from - 1) / TILE) * TILE + 1)
    .where('first_sequence', '<=', to)
    .where('last_sequence', '>=', from)
    .orderBy('first_sequence')
    .execute();
  return rows.map((row) => ({
    ...row,
    first_sequence: Number(row.first_sequence),
    last_sequence: Number(row.last_sequence),
    byte_offset: Number(row.byte_offset),
    byte_length: Number(row.byte_length),
  }));
}
