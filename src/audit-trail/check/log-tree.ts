import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { readLog } from '../../event-store/read-log.js';
import { LOG_START, type RecordedEvent } from '../../event-store/types.js';
import { appendLeaves, frontierRoot, type Frontier } from '../../transparency/frontier.js';
import type { Hash } from '../../transparency/merkle.js';
import { eventLeafHash } from '../event-leaf.js';
import { readArchivedPartition } from './archive.js';
import { loadLogHeads, type LogHead } from './log-heads.js';
import { compareLogPositions, sealEnd } from '../seal/seal-ranges.js';

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
 * Recomputes the log tree over the whole database: every leaf from the events as stored (as the
 * sealer hashes it), in commit-safe order, seal by seal (each range must hold as many events as it
 * sealed), and the root at each signed head's size, which must be the root the head signed. Heads
 * are checked first (loadLogHeads: the audit key's signature, and their files). Archived seals'
 * leaves come from the archive files in `archiveDir` (archive.ts). Catches what a superuser
 * behind the triggers can do: an event edited, deleted, reordered or slipped in, a cut tail, a
 * forged or removed head, an edited or missing archive file.
 */
export async function checkLogTree(
  db: Kysely<Database>,
  options: {
    readonly publicKey?: KeyObject;
    /** The log tree's `*.checkpoint` files (seal/head-files.ts), by size. */
    readonly headFiles?: ReadonlyMap<number, string>;
    readonly archiveDir?: string;
    readonly pageSize?: number;
    readonly onPage?: (eventsChecked: number) => void;
  } = {},
): Promise<LogTreeVerdict> {
  const pageSize = options.pageSize ?? 5000;
  const loaded = await loadLogHeads(db, { publicKey: options.publicKey, files: options.headFiles });
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

  let after = LOG_START;
  let page: readonly RecordedEvent[] = [];
  let index = 0;
  const peek = async (): Promise<RecordedEvent | undefined> => {
    if (index < page.length) return page[index];
    const next = await readLog(db, { after, limit: pageSize });
    page = next.events;
    index = 0;
    after = next.last;
    return page[0];
  };
  const archived = new Map<number, RecordedEvent[]>();
  const partitions = new Set(
    (await db.selectFrom('archived_ranges').select('starts_at').distinct().execute()).map((row) =>
      Number(row.starts_at),
    ),
  );
  let eventsChecked = 0;
  let sealsChecked = 0;
  let archivedSeals = 0;
  for (;;) {
    const seals = await db
      .selectFrom('log_seals')
      .select([
        'seal_number',
        'event_count',
        'last_transaction_id',
        'last_position',
        'partition_start',
      ])
      .where('seal_number', '>', sealsChecked)
      .orderBy('seal_number')
      .limit(Math.max(1, Math.floor(pageSize / 10)))
      .execute();
    if (seals.length === 0) break;
    for (const seal of seals) {
      const end = sealEnd(seal);
      const at = { sealNumber: Number(seal.seal_number), treeSize: null };
      const leaves: Hash[] = [];
      const partition = Number(seal.partition_start);
      if (partitions.has(partition)) {
        if (!options.archiveDir) {
          return {
            ok: false,
            reason: 'archive_dir_missing',
            ...at,
            detail: 'archived partitions are part of the tree: give the archive folder',
          };
        }
        let pool = archived.get(partition);
        if (!pool) {
          const read = await readArchivedPartition(
            db,
            options.archiveDir,
            partition,
            options.publicKey,
          );
          if (!('events' in read))
            return {
              ok: false,
              reason: read.reason === 'archive_file_extra' ? 'archive_file_altered' : read.reason,
              ...at,
              detail: read.detail,
            };
          pool = [...read.events];
          archived.set(partition, pool);
        }
        while (pool.length > 0 && compareLogPositions(pool[0]!, end) <= 0) {
          leaves.push(eventLeafHash(pool.shift()!));
        }
        archivedSeals += 1;
      } else {
        for (let event = await peek(); event; event = await peek()) {
          if (compareLogPositions(event, end) > 0) break;
          leaves.push(eventLeafHash(event));
          index += 1;
        }
      }
      if (leaves.length < seal.event_count) {
        return {
          ok: false,
          reason: 'event_missing',
          ...at,
          detail: `seal ${at.sealNumber} sealed ${seal.event_count} events, ${leaves.length} are left`,
        };
      }
      if (leaves.length > seal.event_count) {
        return {
          ok: false,
          reason: 'event_added',
          ...at,
          detail: `seal ${at.sealNumber} sealed ${seal.event_count} events, ${leaves.length} are there`,
        };
      }
      const broken = append(leaves);
      if (broken) return { ...broken, sealNumber: at.sealNumber };
      eventsChecked += leaves.length;
      sealsChecked = Number(seal.seal_number);
    }
    options.onPage?.(eventsChecked);
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
