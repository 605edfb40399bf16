import type { LogPosition, RecordedEvent } from '../recorded-event.js';
import type { ArchiveProblem } from '../archive-folder.js';
import type { ArchivedPartition } from './archive.js';
import { compareLogPositions } from './log-order.js';
import type { SealedRangeEvidence } from './log-tree.js';

/** A sealed range as its log records it. */
export interface SealRecord {
  readonly sealNumber: number;
  readonly eventCount: number;
  /** Its last event. */
  readonly end: LogPosition;
  /** The start of the partition it lies in, in epoch ms (-Infinity for the first, open-ended). */
  readonly partitionStart: number;
}

/** What the log tree's evidence is read through: the log's storage, behind a few reads. */
export interface SealedLogReader {
  /** The starts (epoch ms) of the partitions archived to files. */
  archivedPartitions(): Promise<ReadonlySet<number>>;
  /** Up to `limit` seals after seal `after`, in seal order. */
  seals(after: number, limit: number): Promise<SealRecord[]>;
  /** Up to `limit` events after `after` in commit-safe order, and where the page ends. */
  events(
    after: LogPosition,
    limit: number,
  ): Promise<{ readonly events: readonly RecordedEvent[]; readonly last: LogPosition }>;
  /** A row slipped in with another's position, when `events` threw because of one. */
  repeatedKey(
    error: unknown,
  ): { readonly position: LogPosition; readonly message: string } | undefined;
  /** The seal whose range holds `position`: the first to end at or after it. */
  sealHolding(position: LogPosition): Promise<number | undefined>;
  /** An archived partition's files read back and judged (check/archive.ts). */
  archivedPartition(
    start: number,
  ): Promise<ArchivedPartition | (ArchiveProblem & { readonly detail: string })>;
  /** Whether archived partitions can be read (the archive folder was given). */
  readonly archiveDir?: string;
}

/**
 * Every sealed range in seal order with the events between its start and its end: seals read
 * `pageSize / 10` at a time, live events `pageSize` at a time (commit-safe order), an archived
 * partition's events once, from its files (checked as they are read back), so memory holds a
 * page, a seal, and at most one archived partition. What check/log-tree.ts judges.
 */
export async function* readSealedRanges(
  reader: SealedLogReader,
  pageSize = 5000,
): AsyncGenerator<SealedRangeEvidence> {
  let after: LogPosition = { transactionId: '0', globalPosition: 0 };
  let page: readonly RecordedEvent[] = [];
  let index = 0;
  const peek = async (): Promise<RecordedEvent | undefined> => {
    if (index < page.length) return page[index];
    const next = await reader.events(after, pageSize);
    page = next.events;
    index = 0;
    after = next.last;
    return page[0];
  };
  const archived = new Map<number, RecordedEvent[]>();
  const partitions = await reader.archivedPartitions();
  let sealsRead = 0;
  for (;;) {
    const seals = await reader.seals(sealsRead, Math.max(1, Math.floor(pageSize / 10)));
    if (seals.length === 0) return;
    for (const { sealNumber, eventCount, end, partitionStart } of seals) {
      sealsRead = sealNumber;
      const events: RecordedEvent[] = [];
      if (partitions.has(partitionStart)) {
        if (!reader.archiveDir) {
          yield {
            sealNumber,
            problem: {
              reason: 'archive_dir_missing',
              detail: 'archived partitions are part of the tree: give the archive folder',
            },
          };
          return;
        }
        let pool = archived.get(partitionStart);
        if (!pool) {
          const read = await reader.archivedPartition(partitionStart);
          if (!('events' in read)) {
            const reason =
              read.reason === 'archive_file_extra' ? 'archive_file_altered' : read.reason;
            yield { sealNumber, problem: { reason, detail: read.detail } };
            return;
          }
          pool = [...read.events];
          archived.set(partitionStart, pool);
        }
        while (pool.length > 0 && compareLogPositions(pool[0]!, end) <= 0)
          events.push(pool.shift()!);
        yield { sealNumber, eventCount, events, archived: true };
        continue;
      }
      try {
        for (let event = await peek(); event; event = await peek()) {
          if (compareLogPositions(event, end) > 0) break;
          events.push(event);
          index += 1;
        }
      } catch (error) {
        const repeated = reader.repeatedKey(error);
        if (!repeated) throw error;
        // A row slipped in with another's position: an event the tree never had, named by the
        // seal whose range holds that position.
        yield {
          sealNumber: (await reader.sealHolding(repeated.position)) ?? sealNumber,
          problem: { reason: 'event_added', detail: repeated.message },
        };
        return;
      }
      yield { sealNumber, eventCount, events, archived: false };
    }
  }
}
