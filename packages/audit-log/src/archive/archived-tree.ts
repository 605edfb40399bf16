import { leafHash, type Hash } from '../transparency/merkle.js';
import { exportedEvent } from '../export-lines.js';
import type { EventLeaves } from '../event-leaf.js';
import { TreeLeavesMissing, type TreeSource } from '../tree/tree-source.js';
import type { ArchivedBlock, ArchivedLeafId } from './blocks.js';
import { readArchiveBlock, type ArchivedEventLine } from './read-block.js';

/**
 * A space tree's leaves that left the log with their partition, read back from the archive files
 * through their index (blocks.ts, kept by the log): each member read is checked against the
 * SHA-256 recorded for it when it was archived, and its events are the exact entries their leaves
 * hash. Partitions are archived oldest first, so what of a space is archived is the start of its
 * history: sequences 1 through `archivedThrough`.
 */

/** The archive's index, as the log keeps it. */
export interface ArchiveIndex {
  /** The last of the space's sequences that is archived (0 when none is). */
  archivedThrough(spaceId: string): Promise<number>;
  /** The members holding the space's archived sequences `from`..`to`, in order. */
  blocks(spaceId: string, from: number, to: number): Promise<ArchivedBlock[]>;
  /** The archived sequence of the space's event with this id, or of this stream's first event. */
  sequenceOf(spaceId: string, which: ArchivedLeafId): Promise<number | undefined>;
}

/** Where archived leaves are read: the index, the folder of the files, the log's leaves. */
export interface ArchivedLeaves {
  readonly index: ArchiveIndex;
  readonly dir: string;
  readonly leaves: EventLeaves;
}

/**
 * The event lines of the space's archived sequences `from`..`to`: the index names the members
 * holding them, and only those members' bytes are read (streamed, checked against their SHA-256).
 */
async function archivedEvents(
  archive: ArchivedLeaves,
  spaceId: string,
  from: number,
  to: number,
): Promise<ArchivedEventLine[]> {
  const events: ArchivedEventLine[] = [];
  for (const block of await archive.index.blocks(spaceId, from, to)) {
    const keep = (line: ArchivedEventLine) => line.sequence >= from && line.sequence <= to;
    const read = await readArchiveBlock(archive.dir, block, keep);
    if (typeof read === 'string') {
      throw new TreeLeavesMissing(spaceId, from, to, 0, `archive file ${block.file}: ${read}`);
    }
    events.push(...read);
  }
  return events;
}

/** A space's tree whose leaves archived with their partition are read from the files. */
export function withArchivedStart(live: TreeSource, archive: ArchivedLeaves): TreeSource {
  const spaceId = live.id;
  return {
    id: spaceId,
    async leaves(from, to) {
      const archived = await archive.index.archivedThrough(spaceId);
      if (from > archived) return live.leaves(from, to);
      const old = (await archivedEvents(archive, spaceId, from, Math.min(to, archived)))
        .sort((a, b) => a.sequence - b.sequence)
        .map((line) => archive.leaves.eventLeafHash(exportedEvent(line)));
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
  archive: ArchivedLeaves,
  spaceId: string,
  which: ArchivedLeafId,
): Promise<{ index: number; entry: Buffer; hash: Hash } | undefined> {
  const sequence = await archive.index.sequenceOf(spaceId, which);
  if (sequence === undefined) return undefined;
  const [found] = await archivedEvents(archive, spaceId, sequence, sequence);
  const matches =
    found &&
    ('eventId' in which
      ? found.event.event_id === which.eventId
      : found.event.stream_id === which.streamId && found.event.stream_position === 1);
  if (!matches) return undefined;
  const entry = archive.leaves.leafEntry(exportedEvent(found));
  return { index: found.sequence - 1, entry, hash: leafHash(entry) };
}
