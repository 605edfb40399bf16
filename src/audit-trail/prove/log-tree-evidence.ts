import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { LogKeyRepeatedError, readLog } from '#event-log/read-log.js';
import { readArchiveFile } from '#audit-log/archive-folder.js';
import { EVENT_LEAVES } from '../event-leaf.js';
import { checkArchivedPartition } from '#audit-log/check/archive.js';
import { readSealedRanges, type SealedLogReader } from '#audit-log/check/sealed-ranges.js';
import {
  checkLogTree,
  type LogTreeEvidence,
  type LogTreeVerdict,
} from '#audit-log/check/log-tree.js';
import type { LogHeadRow } from '#audit-log/check/log-heads.js';
import { LOG_TREE } from '../seal/log-tree.js';
import { sealEnd, sealHolding } from '../seal/seal-ranges.js';

/** What `npm run verify-chain` reads; check/log-tree.ts judges it. */

/** The log tree's stored signed heads, smallest first. */
export async function readLogHeadRows(db: Kysely<Database>): Promise<LogHeadRow[]> {
  return db
    .selectFrom('merkle_checkpoints')
    .select(['tree_size', 'note'])
    .where('space_id', '=', LOG_TREE)
    .orderBy('tree_size')
    .execute();
}

/** The log's seals, events and archive files, as the package's readSealedRanges reads them. */
function postgresSealedLog(
  db: Kysely<Database>,
  options: { readonly archiveDir?: string; readonly publicKey?: KeyObject },
): SealedLogReader {
  return {
    ...(options.archiveDir ? { archiveDir: options.archiveDir } : {}),
    async archivedPartitions() {
      const rows = await db.selectFrom('archived_ranges').select('starts_at').distinct().execute();
      return new Set(rows.map((row) => Number(row.starts_at)));
    },
    async seals(after, limit) {
      const rows = await db
        .selectFrom('log_seals')
        .select(['seal_number', 'event_count', 'last_transaction_id', 'last_position'])
        .select('partition_start')
        .where('seal_number', '>', after)
        .orderBy('seal_number')
        .limit(limit)
        .execute();
      return rows.map((seal) => ({
        sealNumber: Number(seal.seal_number),
        eventCount: seal.event_count,
        end: sealEnd(seal),
        partitionStart: Number(seal.partition_start),
      }));
    },
    events: (after, limit) => readLog(db, { after, limit }),
    repeatedKey: (error) =>
      error instanceof LogKeyRepeatedError
        ? { position: error.position, message: error.message }
        : undefined,
    sealHolding: (position) => sealHolding(db, position),
    archivedPartition: (start) =>
      readArchivedPartition(db, options.archiveDir!, start, options.publicKey),
  };
}

/** Reads back the archived partition's files for check/archive.ts to judge. */
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

/** Checks the log tree over the whole database (`npm run verify-chain`, the chaos oracle). */
export function checkLogTreeInDatabase(
  db: Kysely<Database>,
  options: Omit<Parameters<typeof checkLogTree>[1], 'leaves'> & {
    readonly archiveDir?: string;
    readonly pageSize?: number;
  } = {},
): Promise<LogTreeVerdict> {
  const evidence = async (): Promise<LogTreeEvidence> => ({
    heads: await readLogHeadRows(db),
    seals: readSealedRanges(postgresSealedLog(db, options), options.pageSize),
  });
  return evidence().then((read) => checkLogTree(read, { ...options, leaves: EVENT_LEAVES }));
}
