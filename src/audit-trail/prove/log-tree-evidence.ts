import type { KeyObject } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { LogKeyRepeatedError, readLog } from '../../event-store/read-log.js';
import { LOG_START, type RecordedEvent } from '../../event-store/types.js';
import { readArchiveFile } from '#audit-log/archive-folder.js';
import { EVENT_LEAVES } from '../event-leaf.js';
import { checkArchivedPartition } from '#audit-log/check/archive.js';
import { compareLogPositions } from '#audit-log/check/log-order.js';
import {
  checkLogTree,
  type LogTreeEvidence,
  type LogTreeVerdict,
  type SealedRangeEvidence,
} from '#audit-log/check/log-tree.js';
import type { LogHeadRow } from '#audit-log/check/log-heads.js';
import { LOG_TREE } from '../seal/log-tree.js';
import { sealEnd } from '../seal/seal-ranges.js';

/**
 * What `npm run verify-chain` checks, read from the database: the log tree's stored heads, and
 * each sealed range with the events it holds (archived ranges from the archive files). The
 * judging is check/log-tree.ts's, which sees no database.
 */

/** The log tree's stored signed heads, smallest first. */
export async function readLogHeadRows(db: Kysely<Database>): Promise<LogHeadRow[]> {
  return db
    .selectFrom('merkle_checkpoints')
    .select(['tree_size', 'note'])
    .where('space_id', '=', LOG_TREE)
    .orderBy('tree_size')
    .execute();
}

/**
 * Every sealed range in seal order with the events between its start and its end: seals read
 * `pageSize / 10` at a time, live events `pageSize` at a time (readLog, commit-safe order), an
 * archived partition's events once, from its files (checked as they are read back), so memory
 * holds a page, a seal, and at most one archived partition.
 */
export async function* readSealedRanges(
  db: Kysely<Database>,
  options: {
    readonly archiveDir?: string;
    readonly publicKey?: KeyObject;
    readonly pageSize?: number;
  } = {},
): AsyncGenerator<SealedRangeEvidence> {
  const pageSize = options.pageSize ?? 5000;
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
  let sealsRead = 0;
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
      .where('seal_number', '>', sealsRead)
      .orderBy('seal_number')
      .limit(Math.max(1, Math.floor(pageSize / 10)))
      .execute();
    if (seals.length === 0) return;
    for (const seal of seals) {
      const sealNumber = Number(seal.seal_number);
      sealsRead = sealNumber;
      const end = sealEnd(seal);
      const events: RecordedEvent[] = [];
      const partition = Number(seal.partition_start);
      if (partitions.has(partition)) {
        if (!options.archiveDir) {
          yield {
            sealNumber,
            problem: {
              reason: 'archive_dir_missing',
              detail: 'archived partitions are part of the tree: give the archive folder',
            },
          };
          return;
        }
        let pool = archived.get(partition);
        if (!pool) {
          const read = await readArchivedPartition(
            db,
            options.archiveDir,
            partition,
            options.publicKey,
          );
          if (!('events' in read)) {
            const reason =
              read.reason === 'archive_file_extra' ? 'archive_file_altered' : read.reason;
            yield { sealNumber, problem: { reason, detail: read.detail } };
            return;
          }
          pool = [...read.events];
          archived.set(partition, pool);
        }
        while (pool.length > 0 && compareLogPositions(pool[0]!, end) <= 0)
          events.push(pool.shift()!);
        yield { sealNumber, eventCount: seal.event_count, events, archived: true };
      } else {
        try {
          for (let event = await peek(); event; event = await peek()) {
            if (compareLogPositions(event, end) > 0) break;
            events.push(event);
            index += 1;
          }
        } catch (error) {
          if (!(error instanceof LogKeyRepeatedError)) throw error;
          // A row slipped in with another's position: an event the tree never had, named by the
          // seal whose range holds that position.
          const { transactionId, globalPosition } = error.position;
          const holder = await db
            .selectFrom('log_seals')
            .select('seal_number')
            .where(
              sql<boolean>`(last_transaction_id, last_position) >= (${transactionId}::xid8, ${globalPosition}::bigint)`,
            )
            .orderBy('seal_number')
            .limit(1)
            .executeTakeFirst();
          yield {
            sealNumber: holder ? Number(holder.seal_number) : sealNumber,
            problem: { reason: 'event_added', detail: error.message },
          };
          return;
        }
        yield { sealNumber, eventCount: seal.event_count, events, archived: false };
      }
    }
  }
}

/**
 * Reads back every file of the archived partition starting at `partitionStart` (archived_ranges
 * names them and their SHA-256) and has check/archive.ts judge them.
 */
async function readArchivedPartition(
  db: Kysely<Database>,
  dir: string,
  /** The partition's start in epoch ms (-Infinity for the first, open-ended one). */
  partitionStart: number,
  publicKey?: KeyObject,
) {
  // Compared in JavaScript: the first partition starts at -infinity, which no parameter binds.
  const rows = (
    await db
      .selectFrom('archived_ranges')
      .select(['space_id', 'starts_at', 'file', 'sha256', 'event_count'])
      .select(['first_sequence', 'last_sequence'])
      .execute()
  ).filter((row) => Number(row.starts_at) === partitionStart);
  const files = [];
  for (const row of rows) {
    files.push({
      file: row.file,
      read: await readArchiveFile(dir, { ...row, events: row.event_count }),
    });
  }
  return checkArchivedPartition(files, dir, EVENT_LEAVES, publicKey);
}

/**
 * Checks the log tree over the whole database (`npm run verify-chain`, the chaos oracle): its
 * evidence read here, judged by check/log-tree.ts.
 */
export function checkLogTreeInDatabase(
  db: Kysely<Database>,
  options: {
    readonly publicKey?: KeyObject;
    /** The log tree's `*.checkpoint` files (`#audit-log/head-files.ts`), by size. */
    readonly headFiles?: ReadonlyMap<number, string>;
    readonly archiveDir?: string;
    readonly pageSize?: number;
    readonly onProgress?: (eventsChecked: number) => void;
  } = {},
): Promise<LogTreeVerdict> {
  const evidence = async (): Promise<LogTreeEvidence> => ({
    heads: await readLogHeadRows(db),
    seals: readSealedRanges(db, options),
  });
  return evidence().then((read) => checkLogTree(read, { ...options, leaves: EVENT_LEAVES }));
}
