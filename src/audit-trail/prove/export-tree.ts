import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { leafEntry } from '../event-leaf.js';
import { eventsInRange, sealRange } from '../seal/seal-ranges.js';
import { archivedOverlapping } from './archived-ranges.js';
import { EXPORT_FORMAT, type FrontierLine, type TreeExportLine } from '#audit-log/export-lines.js';
import { spaceTree } from '../seal/space-tree.js';
import { archivedSpaceTree } from './archived-leaves.js';
import { loadFrontier } from '#audit-log/tree/tree-growth.js';
import { unlessLeavesMissing } from '#audit-log/tree/tree-source.js';
import { treeNodes } from '../seal/tree-store.js';
import { listTreeHeads } from './tree-heads.js';
import { tracesOf, type EventTrace } from '../../event-store/event-traces.js';

/**
 * A space's sealed events recorded in [from, to) as an export of format 2 (export-lines.ts): the
 * format line, what of the range was archived (its files named), the tree's frontier before the
 * first exported event, the events in sequence order as their leaves cover them, then the space
 * tree's signed heads whose sizes end among them, with their cosignatures. Events are read as
 * stored: one changed behind the triggers no longer makes the roots the heads signed.
 */
export async function* exportSpaceTree(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly from: Date;
    readonly to: Date;
    readonly pageSize?: number;
    /** ARCHIVE_DIR: leaves before the first exported event that were archived are read there. */
    readonly archiveDir?: string;
  },
): AsyncGenerator<TreeExportLine> {
  yield { type: 'format', version: EXPORT_FORMAT };
  for (const range of await archivedOverlapping(db, options)) yield range;
  let after = 0;
  let first: number | undefined;
  let last: number | undefined;
  for (;;) {
    const seals = await db
      .selectFrom('space_ranges')
      .select(['seal_number', 'first_sequence', 'last_sequence', 'min_position', 'max_position'])
      .where('space_id', '=', options.spaceId)
      .where('last_recorded_at', '>=', options.from)
      .where('first_recorded_at', '<', options.to)
      .where('last_sequence', '>', after)
      .orderBy('last_sequence')
      .limit(Math.max(1, Math.floor((options.pageSize ?? 1000) / 10)))
      .execute();
    if (seals.length === 0) break;
    for (const seal of seals) {
      after = seal.last_sequence;
      const range = await sealRange(db, seal.seal_number);
      if (!range) continue;
      const events = await eventsInRange(db, range, {
        spaceId: options.spaceId,
        minPosition: seal.min_position,
        maxPosition: seal.max_position,
      });
      const traces = await tracesOf(
        db,
        events.map((event) => event.globalPosition),
      );
      let sequence = seal.first_sequence - 1;
      for (const stored of events) {
        sequence += 1;
        if (stored.recordedAt < options.from || stored.recordedAt >= options.to) continue;
        if (first === undefined) {
          first = sequence;
          const start = first > 1 ? await frontierBefore(db, options, first) : undefined;
          if (start) yield start;
        }
        last = sequence;
        const bytes = leafEntry(stored).toString('utf8');
        const event = JSON.parse(bytes) as Record<string, unknown>;
        const trace = traces.get(stored.globalPosition);
        yield trace
          ? { type: 'event', sequence, event, trace: traceLine(trace) }
          : { type: 'event', sequence, event };
      }
    }
  }
  if (first === undefined || last === undefined) return;
  for (const head of await listTreeHeads(db, options.spaceId, first, last)) {
    yield { type: 'tree-head', tree_size: head.size, checkpoint: head.note };
  }
}

const traceLine = (trace: EventTrace) => ({
  trace_id: trace.traceId,
  span_id: trace.spanId,
});

/** The space tree's frontier of `first - 1` leaves, from its stored nodes and last tile. */
async function frontierBefore(
  db: Kysely<Database>,
  options: { readonly spaceId: string; readonly archiveDir?: string },
  first: number,
): Promise<FrontierLine | undefined> {
  const tree = options.archiveDir
    ? archivedSpaceTree(db, options.spaceId, options.archiveDir)
    : spaceTree(db, options.spaceId);
  // Leaves before the first exported event may be archived: the archive files hold them.
  const frontier = await unlessLeavesMissing(loadFrontier(treeNodes(db), tree, first - 1));
  if (!frontier) return undefined;
  return {
    type: 'frontier',
    tree_size: frontier.size,
    nodes: frontier.nodes.map((node) => ({ level: node.level, hash: node.hash.toString('hex') })),
  };
}
