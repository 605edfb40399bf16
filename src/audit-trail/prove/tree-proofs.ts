import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow } from '#event-log/types.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  type Hash,
} from '#audit-log/transparency/merkle.js';
import { leafEntry } from '../event-leaf.js';
import { sealHolding, sealRange } from '../seal/seal-ranges.js';
import { inRange } from '#event-log/log-range.js';
import { spaceTree } from '../seal/space-tree.js';
import { archivedSpaceTree, findArchivedLeaf } from './archived-leaves.js';
import { LOG_TREE, logLeafIndex, logTree, logTreeSize } from '../seal/log-tree.js';
import { overTree } from '#audit-log/tree/tiled-tree.js';
import type { TreeSource } from '#audit-log/tree/tree-source.js';
import { treeNodes } from '../seal/tree-store.js';
import { eventVisibleTo } from '../../domain/policy.js';
import type { EventType } from '../../domain/events.js';

/** How many events a tree holds: a space's last sequence, or every sealed event (LOG_TREE). */
export async function sealedTreeSize(db: Kysely<Database>, spaceId: string): Promise<number> {
  if (spaceId === LOG_TREE) return logTreeSize(db);
  const head = await db
    .selectFrom('space_ranges')
    .select('last_sequence')
    .where('space_id', '=', spaceId)
    .orderBy('last_sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return Number(head?.last_sequence ?? 0);
}

/** Rows an id lookup takes at most: ids are unique per space only, so another's never hides ours. */
const LOOKUP_ROWS = 8;

/** An event as its space tree holds it: its leaf index and the exact bytes its leaf hashes. */
export interface TreeLeaf {
  readonly index: number;
  readonly entry: Buffer;
  readonly hash: Hash;
}

/** The leaf of the event with this id (or token jti's issuance); 'unsealed' when not sealed yet. */
export async function findLeaf(
  db: Kysely<Database>,
  spaceId: string,
  /** An event; a stream's first event; or its first event of a type (a token's revocation). */
  which:
    { readonly eventId: string } | { readonly streamId: string; readonly eventType?: EventType },
  /** Its index in the space's tree, or in the log tree. */
  tree: 'space' | 'log' = 'space',
  /** Where archived events are (their space-tree leaves only). */
  archiveDir?: string,
  /** Whether the reader may see it, sealed or not (else it is not found: nothing is told). */
  readable: (entry: Buffer) => boolean = () => true,
): Promise<TreeLeaf | 'unsealed' | undefined> {
  // By stream or event id alone, so their indexes answer (with the space, the planner may walk all
  // the space's events); the space is checked on the rows.
  const rows = (await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .$if('eventId' in which, (query) =>
      query.where('event_id', '=', (which as { eventId: string }).eventId),
    )
    .$if('streamId' in which, (query) => {
      const { streamId, eventType } = which as { streamId: string; eventType?: EventType };
      const inStream = query.where('stream_id', '=', streamId);
      return eventType
        ? inStream.where('event_type', '=', eventType).orderBy('stream_position')
        : inStream.where('stream_position', '=', 1);
    })
    .limit(LOOKUP_ROWS)
    .execute()) as EventRow[];
  const row = rows.find((candidate) => eventVisibleTo(candidate, spaceId));
  // Another space's id probes this archive as a made-up one does: equal time, nothing revealed.
  if (!row && archiveDir && tree === 'space' && !('eventType' in which)) {
    return findArchivedLeaf(db, archiveDir, spaceId, which);
  }
  if (!row) return undefined;
  const event = toRecordedEvent(row);
  const entry = leafEntry(event);
  if (!readable(entry)) return undefined;
  if (tree === 'log') {
    const index = await logLeafIndex(db, event);
    if (index === undefined) return 'unsealed';
    return { index, entry, hash: leafHash(entry) };
  }
  const sealNumber = (await sealHolding(db, event)) ?? 0;
  const share = sealNumber
    ? await db
        .selectFrom('space_ranges')
        .select(['first_sequence', 'min_position', 'max_position'])
        .where('space_id', '=', spaceId)
        .where('seal_number', '=', sealNumber)
        .executeTakeFirst()
    : undefined;
  const range = share && (await sealRange(db, sealNumber));
  if (!share || !range) return 'unsealed';
  // Its place in the space's share of that seal: how many of the space's events come before it.
  const { rows: before } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM events
    WHERE space_id = ${spaceId}
      AND global_position BETWEEN ${share.min_position} AND ${share.max_position}
      AND ${inRange(range)}
      AND (transaction_id, global_position) < (${event.transactionId}::xid8, ${event.globalPosition})`.execute(
    db,
  );
  return {
    index: Number(share.first_sequence) + Number(before[0]?.n ?? 0) - 1,
    entry,
    hash: leafHash(entry),
  };
}

/** A tree by its id: a space's (its archived leaves from `archiveDir`), or the log's (LOG_TREE). */
export function treeOf(db: Kysely<Database>, treeId: string, archiveDir?: string): TreeSource {
  if (treeId === LOG_TREE) return logTree(db);
  return archiveDir ? archivedSpaceTree(db, treeId, archiveDir) : spaceTree(db, treeId);
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves (a space's, or LOG_TREE). */
export function proveInclusion(
  db: Kysely<Database>,
  treeId: string,
  index: number,
  size: number,
  archiveDir?: string,
): Promise<Hash[]> {
  return overTree(treeNodes(db), treeOf(db, treeId, archiveDir), size, (tree) =>
    inclusionProof(tree, index, size),
  );
}

/** The consistency proof from the tree of `from` leaves to that of `to` (a space's, or LOG_TREE). */
export function proveConsistency(
  db: Kysely<Database>,
  treeId: string,
  from: number,
  to: number,
  archiveDir?: string,
): Promise<Hash[]> {
  return overTree(treeNodes(db), treeOf(db, treeId, archiveDir), to, (tree) =>
    consistencyProof(tree, from, to),
  );
}
