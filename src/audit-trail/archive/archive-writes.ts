import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ArchiveFile } from '#audit-log/archive-folder.js';
import type { WrittenArchiveFile } from '#audit-log/archive/write-files.js';
import { recordArchiveIndex } from './archive-index.js';

/** An archived partition as its `events-archived` event's transaction records it. */
export interface ArchivedPartition {
  readonly partition: string;
  readonly startsAt: Date;
  readonly endsAt: Date;
  readonly files: readonly ArchiveFile[];
  readonly written: readonly WrittenArchiveFile[];
}

/** What commits with `events-archived`: ranges, files' index, the partition dropped. */
export interface ArchiveWrites {
  archived(partition: ArchivedPartition): Promise<void>;
}

/** The archive's writes through the append's Postgres transaction. */
export function postgresArchiveWrites(trx: Transaction<Database>): ArchiveWrites {
  return {
    async archived({ partition, startsAt, endsAt, files, written }) {
      // Dropping a partition locks the whole log for a moment: never queue appends behind a wait.
      await sql`SET LOCAL lock_timeout = '3s'`.execute(trx);
      // A partition that held no events has no files: it is recorded and dropped all the same.
      if (files.length > 0) {
        await trx
          .insertInto('archived_ranges')
          .values(
            files.map((file) => ({
              space_id: file.space_id,
              partition_name: partition,
              starts_at: startsAt,
              ends_at: endsAt,
              first_sequence: file.first_sequence,
              last_sequence: file.last_sequence,
              event_count: file.events,
              file: file.file,
              sha256: file.sha256,
            })),
          )
          .execute();
      }
      for (const { entry, blocks, keys } of written) {
        await recordArchiveIndex(trx, {
          partition,
          spaceId: entry.space_id,
          file: entry.file,
          blocks,
          keys,
        });
      }
      // The traces of its events go with it: kept, they would grow with every token forever.
      await sql`DELETE FROM event_traces WHERE global_position IN (SELECT global_position FROM ${sql.table(partition)})`.execute(
        trx,
      );
      await trx.deleteFrom('event_partitions').where('partition_name', '=', partition).execute();
      await sql`DROP TABLE ${sql.table(partition)}`.execute(trx);
    },
  };
}
