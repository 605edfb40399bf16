import type { EventLeaves } from './event-leaf.js';
import {
  EXPORT_FORMAT,
  type ArchivedLine,
  type FrontierLine,
  type TreeEventLine,
  type TreeExportLine,
} from './export-lines.js';
import type { RecordedEvent } from './recorded-event.js';
import type { Frontier } from './transparency/frontier.js';

/** A seal's share of one space: its sequences, and how to read its events. */
export interface SpaceSeal {
  readonly firstSequence: number;
  readonly lastSequence: number;
  /** The space's events of the seal in sequence order, with the traces they were appended in. */
  events(): Promise<{
    readonly events: readonly RecordedEvent[];
    readonly traces: ReadonlyMap<number, NonNullable<TreeEventLine['trace']>>;
  }>;
}

/** What an export of a space is read from, in the log's storage. */
export interface SpaceExportSource {
  /** The space's archived ranges overlapping the export's, oldest first. */
  archived(): Promise<ArchivedLine[]>;
  /** Up to `limit` of the space's seals touching the time range, after sequence `after`. */
  seals(after: number, limit: number): Promise<SpaceSeal[]>;
  /** The space tree's frontier at `size` (undefined: its leaves are archived, the files hold it). */
  frontier(size: number): Promise<Frontier | undefined>;
  /** The space tree's signed heads of sizes `from`..`to`, smallest first, cosignatures appended. */
  heads(from: number, to: number): Promise<ReadonlyArray<{ size: number; note: string }>>;
}

/**
 * A space's sealed events recorded in [from, to) as an export of format 2 (export-lines.ts): the
 * format line, what of the range was archived (its files named), the tree's frontier before the
 * first exported event, the events in sequence order as their leaves cover them, then the space
 * tree's signed heads whose sizes end among them, with their cosignatures. Events are read as
 * stored: one changed behind the log's back no longer makes the roots the heads signed. With
 * `throughSequence` it ends there (at a signed head's size, its events all anchored).
 */
export async function* exportSpace(
  source: SpaceExportSource,
  leaves: EventLeaves,
  range: {
    readonly from: Date;
    readonly to: Date;
    readonly pageSize?: number;
    readonly throughSequence?: number;
  },
): AsyncGenerator<TreeExportLine> {
  yield { type: 'format', version: EXPORT_FORMAT };
  for (const archived of await source.archived()) yield archived;
  let after = 0;
  let first: number | undefined;
  let last: number | undefined;
  const limit = Math.max(1, Math.floor((range.pageSize ?? 1000) / 10));
  const through = range.throughSequence ?? Number.POSITIVE_INFINITY;
  pages: for (let seals = await source.seals(after, limit); seals.length > 0;) {
    for (const seal of seals) {
      after = seal.lastSequence;
      const { events, traces } = await seal.events();
      let sequence = seal.firstSequence - 1;
      for (const stored of events) {
        sequence += 1;
        if (sequence > through) break pages;
        if (stored.recordedAt < range.from || stored.recordedAt >= range.to) continue;
        if (first === undefined) {
          first = sequence;
          const start = first > 1 ? await source.frontier(first - 1) : undefined;
          if (start) yield frontierLine(start);
        }
        last = sequence;
        const event = JSON.parse(leaves.leafEntry(stored).toString('utf8')) as Record<
          string,
          unknown
        >;
        const trace = traces.get(stored.globalPosition);
        yield trace
          ? { type: 'event', sequence, event, trace }
          : { type: 'event', sequence, event };
      }
    }
    seals = after >= through ? [] : await source.seals(after, limit);
  }
  if (first === undefined || last === undefined) return;
  for (const head of await source.heads(first, last)) {
    yield { type: 'tree-head', tree_size: head.size, checkpoint: head.note };
  }
}

/** A frontier as its export line. */
function frontierLine(frontier: Frontier): FrontierLine {
  return {
    type: 'frontier',
    tree_size: frontier.size,
    nodes: frontier.nodes.map((node) => ({ level: node.level, hash: node.hash.toString('hex') })),
  };
}
