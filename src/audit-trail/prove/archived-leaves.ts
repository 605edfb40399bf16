import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { leafHash, type Hash } from '#audit-log/transparency/merkle.js';
import { readArchiveBlock, type ArchivedEventLine } from '#audit-log/archive/read-block.js';
import { archivedBlocks, archivedSequenceOf } from '../archive/archive-index.js';
import type { ArchivedLeafId } from '#audit-log/archive/blocks.js';
import { eventLeafHash, leafEntry } from '../event-leaf.js';
import { exportedEvent } from '#audit-log/export-lines.js';
import { spaceTree } from '../seal/space-tree.js';
import { TreeLeavesMissing, type TreeSource } from '#audit-log/tree/tree-source.js';

/**
 * A space tree's leaves that left the database with their partition, read back from the archive
 * files (ARCHIVE_DIR) through their index (archive-index.ts): each member read is checked against
 * the SHA-256 recorded for it when it was archived, and its events are the exact entries their
 * leaves hash. Partitions are archived oldest first, so
 * what of a space is archived is the start of its history: sequences 1 through `archivedThrough`.
 */

/** The last of the space's sequences that is archived (0 when none is). */
export async function archivedThrough(db: Kysely<Database>, spaceId: string): Promise<number> {
  const row = await db
    .selectFrom('archived_ranges')
    .select((eb) => eb.fn.max('last_sequence').as('last'))
    .where('space_id', '=', spaceId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/**
 * The event lines of the space's archived sequences `from`..`to`: the index names the members
 * holding them, and only those members' bytes are read (streamed, checked against their SHA-256).
 */
async function archivedEvents(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  from: number,
  to: number,
): Promise<ArchivedEventLine[]> {
  const events: ArchivedEventLine[] = [];
  for (const block of await archivedBlocks(db, spaceId, from, to)) {
    const read = await readArchiveBlock(
      dir,
      block,
      (line) => line.sequence >= from && line.sequence <= to,
    );
    if (typeof read === 'string') {
      throw new TreeLeavesMissing(spaceId, from, to, 0, `archive file ${block.file}: ${read}`);
    }
    events.push(...read);
  }
  return events;
}

/** The leaves of the space's archived sequences `from`..`to`, in order. */
export async function archivedLeaves(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  from: number,
  to: number,
): Promise<Hash[]> {
  const events = await archivedEvents(db, dir, spaceId, from, to);
  return events
    .sort((a, b) => a.sequence - b.sequence)
    .map((line) => eventLeafHash(exportedEvent(line)));
}

/** A space's tree whose leaves archived with their partition are read from the files in `dir`. */
export function archivedSpaceTree(db: Kysely<Database>, spaceId: string, dir: string): TreeSource {
  const live = spaceTree(db, spaceId);
  return {
    id: spaceId,
    async leaves(from, to) {
      const archived = await archivedThrough(db, spaceId);
      if (from > archived) return live.leaves(from, to);
      const old = await archivedLeaves(db, dir, spaceId, from, Math.min(to, archived));
      return to > archived ? [...old, ...(await live.leaves(archived + 1, to))] : old;
    },
  };
}

/**
 * The archived event with this id, or the issuance of this stream (a token), as a leaf: one probe
 * of the space's index, then (when it is there) one member of one file. A miss reads no file, so an
 * id of another space's costs what a made-up one does.
 */
export async function findArchivedLeaf(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  which: ArchivedLeafId,
): Promise<{ index: number; entry: Buffer; hash: Hash } | undefined> {
  const sequence = await archivedSequenceOf(db, spaceId, which);
  if (sequence === undefined) return undefined;
  const [found] = await archivedEvents(db, dir, spaceId, sequence, sequence);
  const matches =
    found &&
    ('eventId' in which
      ? found.event.event_id === which.eventId
      : found.event.stream_id === which.streamId && found.event.stream_position === 1);
  if (!matches) return undefined;
  const entry = leafEntry(exportedEvent(found));
  return { index: found.sequence - 1, entry, hash: leafHash(entry) };
}
