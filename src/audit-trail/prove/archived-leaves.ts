import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  findArchivedLeaf as findLeafInArchive,
  withArchivedStart,
  type ArchivedLeaves,
} from '#audit-log/archive/archived-tree.js';
import type { ArchivedLeafId } from '#audit-log/archive/blocks.js';
import type { Hash } from '#audit-log/transparency/merkle.js';
import type { TreeSource } from '#audit-log/tree/tree-source.js';
import { archivedBlocks, archivedSequenceOf } from '../archive/archive-index.js';
import { EVENT_LEAVES } from '../event-leaf.js';
import { spaceTree } from '../seal/space-tree.js';

/** A space tree's archived leaves, read from ARCHIVE_DIR through the archive index. */
function archivedLeaves(db: Kysely<Database>, dir: string): ArchivedLeaves {
  return {
    dir,
    leaves: EVENT_LEAVES,
    index: {
      async archivedThrough(spaceId) {
        const row = await db
          .selectFrom('archived_ranges')
          .select((eb) => eb.fn.max('last_sequence').as('last'))
          .where('space_id', '=', spaceId)
          .executeTakeFirst();
        return Number(row?.last ?? 0);
      },
      blocks: (spaceId, from, to) => archivedBlocks(db, spaceId, from, to),
      sequenceOf: (spaceId, which) => archivedSequenceOf(db, spaceId, which),
    },
  };
}

/** A space's tree whose leaves archived with their partition are read from the files in `dir`. */
export function archivedSpaceTree(db: Kysely<Database>, spaceId: string, dir: string): TreeSource {
  return withArchivedStart(spaceTree(db, spaceId), archivedLeaves(db, dir));
}

/** The archived event with this id, or the issuance of this stream (a token), as a leaf. */
export function findArchivedLeaf(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  which: ArchivedLeafId,
): Promise<{ index: number; entry: Buffer; hash: Hash } | undefined> {
  return findLeafInArchive(archivedLeaves(db, dir), spaceId, which);
}
