import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { leafHash, type Hash } from '../transparency/merkle.js';
import { readArchiveFile } from './archive-files.js';
import { canonicalEventBytes } from './chain-link.js';
import { exportedEvent } from './check-export.js';
import type { ExportLine } from './export.js';
import type { Redact } from './redaction.js';
import { spaceTree } from './space-tree.js';
import { TreeLeavesMissing, type TreeSource } from './tree-store.js';

/**
 * A space tree's leaves that left the database with their partition, read back from the archive
 * files (ARCHIVE_DIR): each file is checked against the SHA-256 the live log recorded for it, and
 * its events are the exact entries their leaves hash. Partitions are archived oldest first, so
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

type EventLine = Extract<ExportLine, { type: 'event' }>;

/** The event lines of the space's archive files that overlap sequences `from`..`to`. */
async function archivedEvents(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  from: number,
  to: number,
): Promise<EventLine[]> {
  const files = await db
    .selectFrom('archived_ranges')
    .select(['file', 'sha256', 'event_count', 'first_sequence', 'last_sequence'])
    .where('space_id', '=', spaceId)
    .where('first_sequence', '<=', to)
    .where('last_sequence', '>=', from)
    .orderBy('first_sequence')
    .execute();
  const events: EventLine[] = [];
  for (const file of files) {
    const read = await readArchiveFile(dir, {
      space_id: spaceId,
      ...file,
      events: file.event_count,
    });
    if (!read?.intact) {
      throw new TreeLeavesMissing(
        spaceId,
        from,
        to,
        0,
        `archive file ${file.file} is missing or altered`,
      );
    }
    for (const text of read.lines) {
      const line = JSON.parse(text) as ExportLine;
      if (line.type === 'event' && line.sequence >= from && line.sequence <= to) events.push(line);
    }
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
    .map((line) => leafHash(canonicalEventBytes(exportedEvent(line))));
}

/** A space's tree whose leaves archived with their partition are read from the files in `dir`. */
export function archivedSpaceTree(
  db: Kysely<Database>,
  spaceId: string,
  redact: Redact,
  dir: string,
): TreeSource {
  const live = spaceTree(db, spaceId, redact);
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

/** The archived event with this id, or the issuance of this stream (a token), as a leaf. */
export async function findArchivedLeaf(
  db: Kysely<Database>,
  dir: string,
  spaceId: string,
  which: { readonly eventId: string } | { readonly streamId: string },
): Promise<{ index: number; entry: Buffer; hash: Hash } | undefined> {
  const through = await archivedThrough(db, spaceId);
  if (through === 0) return undefined;
  const found = (await archivedEvents(db, dir, spaceId, 1, through)).find((line) =>
    'eventId' in which
      ? line.event.event_id === which.eventId
      : line.event.stream_id === which.streamId && line.event.stream_position === 1,
  );
  if (!found) return undefined;
  const entry = canonicalEventBytes(exportedEvent(found));
  return { index: found.sequence - 1, entry, hash: leafHash(entry) };
}
