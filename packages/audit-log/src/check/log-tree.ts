import type { KeyObject } from 'node:crypto';
import type { RecordedEvent } from '../recorded-event.js';
import { appendLeaves, frontierRoot, type Frontier } from '../transparency/frontier.js';
import type { Hash } from '../transparency/merkle.js';
import type { EventLeaves } from '../event-leaf.js';
import { checkLogHeads, type LogHead, type LogHeadRow } from './log-heads.js';

/** Where and how the log stopped matching its tree. */
export type LogTreeBreak = {
  readonly ok: false;
  /**
   * event_altered: the leaves recomputed from the events do not make the root a signed head of
   * this size holds (an event edited, reordered or replaced since). event_missing / event_added:
   * seal `sealNumber`'s range holds fewer / more events than it sealed, or a head is larger than
   * the log. tree_head_forged / tree_head_missing: a head is not the audit key's, differs from its
   * file, or is gone from the database while its file remains. archive_*: an archive file.
   */
  readonly reason:
    | 'event_altered'
    | 'event_missing'
    | 'event_added'
    | 'tree_head_forged'
    | 'tree_head_missing'
    | 'archive_file_missing'
    | 'archive_file_altered'
    | 'archive_dir_missing';
  /** The seal whose range is at fault (counts), if one is. */
  readonly sealNumber: number | null;
  /** The log tree's size at the head at fault, if one is. */
  readonly treeSize: number | null;
  readonly detail: string;
};

/** The verdict of {@link checkLogTree}. */
export type LogTreeVerdict =
  | {
      readonly ok: true;
      readonly eventsChecked: number;
      readonly sealsChecked: number;
      /** Signed heads whose root the recomputed leaves made. */
      readonly headsChecked: number;
      /** Seals of archived partitions, their leaves recomputed from the archive files. */
      readonly archivedSeals: number;
      /** Sealed events past the newest signed head: in the tree, anchored by no signature yet. */
      readonly unanchoredEvents: number;
    }
  | LogTreeBreak;

/**
 * One sealed range of the log as the database (or, archived, its files) holds it: the seal's own
 * count, and the events found between the previous seal's end and its own, in commit-safe order.
 * `problem`: its events could not be read back (an archive file missing or altered), or two of
 * them hold one log position (one was slipped in: `event_added`).
 */
export type SealedRangeEvidence =
  | {
      readonly sealNumber: number;
      readonly eventCount: number;
      readonly events: readonly RecordedEvent[];
      /** Its events came from the archive files. */
      readonly archived: boolean;
    }
  | {
      readonly sealNumber: number;
      readonly problem: {
        readonly reason:
          'archive_file_missing' | 'archive_file_altered' | 'archive_dir_missing' | 'event_added';
        readonly detail: string;
      };
    };

/** What the log tree is checked from: its stored heads, and its sealed ranges in order. */
export interface LogTreeEvidence {
  /** The log tree's stored signed heads, smallest first. */
  readonly heads: readonly LogHeadRow[];
  /** Every sealed range, in seal order, read a page at a time (memory stays bounded). */
  readonly seals: AsyncIterable<SealedRangeEvidence>;
}

/**
 * Recomputes the log tree from its evidence, with no database: every leaf from the events as
 * stored (event-leaf.ts, as the sealer hashes it), seal by seal (each range must hold as many
 * events as it sealed), and the root at each signed head's size, which must be the root the head
 * signed. Heads are checked first (checkLogHeads: the audit key's signature, and their files).
 * Catches what a superuser behind the triggers can do: an event edited, deleted, reordered or
 * slipped in, a cut tail, a forged or removed head, an edited or missing archive file. The reading
 * is prove/log-tree-evidence.ts's.
 */
export async function checkLogTree(
  evidence: LogTreeEvidence,
  options: {
    /** The log's leaves (its redaction bound), as the sealer hashed them. */
    readonly leaves: EventLeaves;
    readonly publicKey?: KeyObject;
    /** The log tree's `*.checkpoint` files (seal/head-files.ts), by size. */
    readonly headFiles?: ReadonlyMap<number, string>;
    readonly onProgress?: (eventsChecked: number) => void;
  },
): Promise<LogTreeVerdict> {
  const loaded = checkLogHeads(evidence.heads, {
    publicKey: options.publicKey,
    files: options.headFiles,
  });
  if (!('length' in loaded)) return { ok: false, sealNumber: null, ...loaded };
  const heads: readonly LogHead[] = loaded;
  let nextHead = 0;
  let frontier: Frontier = { size: 0, nodes: [] };
  let headsChecked = 0;
  /** Appends leaves, holding the root to every head whose size they pass. */
  const append = (leaves: readonly Hash[]): LogTreeBreak | undefined => {
    let from = 0;
    while (from < leaves.length) {
      const head = heads[nextHead];
      const take = head ? Math.min(leaves.length - from, head.size - frontier.size) : Infinity;
      const end = Math.min(leaves.length, from + take);
      frontier = appendLeaves(frontier, leaves.slice(from, end)).frontier;
      from = end;
      if (head && frontier.size === head.size) {
        if (!frontierRoot(frontier)!.equals(head.root)) {
          const before = heads[nextHead - 1]?.size ?? 0;
          return {
            ok: false,
            reason: 'event_altered',
            sealNumber: null,
            treeSize: head.size,
            detail: `the events of leaves ${before + 1}..${head.size} do not make the root the head of size ${head.size} signed`,
          };
        }
        nextHead += 1;
        headsChecked += 1;
      }
    }
    return undefined;
  };

  let eventsChecked = 0;
  let sealsChecked = 0;
  let archivedSeals = 0;
  for await (const seal of evidence.seals) {
    const at = { sealNumber: seal.sealNumber, treeSize: null };
    if ('problem' in seal) return { ok: false, ...seal.problem, ...at };
    const leaves = seal.events.map(options.leaves.eventLeafHash);
    if (leaves.length < seal.eventCount) {
      return {
        ok: false,
        reason: 'event_missing',
        ...at,
        detail: `seal ${at.sealNumber} sealed ${seal.eventCount} events, ${leaves.length} are left`,
      };
    }
    if (leaves.length > seal.eventCount) {
      return {
        ok: false,
        reason: 'event_added',
        ...at,
        detail: `seal ${at.sealNumber} sealed ${seal.eventCount} events, ${leaves.length} are there`,
      };
    }
    const broken = append(leaves);
    if (broken) return { ...broken, sealNumber: at.sealNumber };
    eventsChecked += leaves.length;
    sealsChecked = seal.sealNumber;
    if (seal.archived) archivedSeals += 1;
    options.onProgress?.(eventsChecked);
  }
  const beyond = heads[nextHead];
  if (beyond) {
    return {
      ok: false,
      reason: 'event_missing',
      sealNumber: null,
      treeSize: beyond.size,
      detail: `a head signed ${beyond.size} leaves; the log's seals hold ${frontier.size}`,
    };
  }
  const newest = heads.at(-1)?.size ?? 0;
  return {
    ok: true,
    eventsChecked,
    sealsChecked,
    headsChecked,
    archivedSeals,
    unanchoredEvents: frontier.size - newest,
  };
}
