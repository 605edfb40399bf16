import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { EVENT_LEAVES } from '../event-leaf.js';
import { eventsInRange, sealRange } from '../seal/seal-ranges.js';
import { archivedOverlapping } from './archived-ranges.js';
import type { TreeExportLine } from '#audit-log/export-lines.js';
import { exportSpace, type SpaceExportSource } from '#audit-log/space-export.js';
import { spaceTree } from '../seal/space-tree.js';
import { archivedSpaceTree } from './archived-leaves.js';
import { loadFrontier } from '#audit-log/tree/tree-growth.js';
import { unlessLeavesMissing } from '#audit-log/tree/tree-source.js';
import { treeNodes } from '../seal/tree-store.js';
import { listTreeHeads } from './tree-heads.js';
import { tracesOf } from '#event-log/event-traces.js';

/** The options of an export of a space's events recorded in [from, to): the package's range. */
type ExportOptions = Parameters<typeof exportSpace>[2] & {
  readonly spaceId: string;
  /** ARCHIVE_DIR: leaves before the first exported event that were archived are read there. */
  readonly archiveDir?: string;
};

/** A space's sealed events in [from, to) as a format-2 export (the package's exportSpace). */
export function exportSpaceTree(
  db: Kysely<Database>,
  options: ExportOptions,
): AsyncGenerator<TreeExportLine> {
  return exportSpace(postgresSpaceExport(db, options), EVENT_LEAVES, options);
}

function postgresSpaceExport(db: Kysely<Database>, options: ExportOptions): SpaceExportSource {
  const { spaceId } = options;
  return {
    archived: () => archivedOverlapping(db, options),
    async seals(after, limit) {
      const seals = await db
        .selectFrom('space_ranges')
        .select(['seal_number', 'first_sequence', 'last_sequence', 'min_position', 'max_position'])
        .where('space_id', '=', spaceId)
        .where('last_recorded_at', '>=', options.from)
        .where('first_recorded_at', '<', options.to)
        .where('last_sequence', '>', after)
        .orderBy('last_sequence')
        .limit(limit)
        .execute();
      return seals.map((seal) => ({
        firstSequence: seal.first_sequence,
        lastSequence: seal.last_sequence,
        async events() {
          const range = await sealRange(db, seal.seal_number);
          if (!range) return { events: [], traces: new Map() };
          const events = await eventsInRange(db, range, {
            spaceId,
            minPosition: seal.min_position,
            maxPosition: seal.max_position,
          });
          const traces = await tracesOf(
            db,
            events.map((event) => event.globalPosition),
          );
          return {
            events,
            traces: new Map(
              [...traces].map(([at, trace]) => [
                at,
                { trace_id: trace.traceId, span_id: trace.spanId },
              ]),
            ),
          };
        },
      }));
    },
    frontier(size) {
      const tree = options.archiveDir
        ? archivedSpaceTree(db, spaceId, options.archiveDir)
        : spaceTree(db, spaceId);
      // Leaves before the first exported event may be archived: the archive files hold them.
      return unlessLeavesMissing(loadFrontier(treeNodes(db), tree, size));
    },
    heads: (from, to) => listTreeHeads(db, spaceId, from, to),
  };
}
