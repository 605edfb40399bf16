import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ArchiveCommand } from '../../domain/archive/decide.js';
import type { ServiceActor } from '../../domain/events.js';
import { createEventStore, type EventStore } from '#event-log/event-store.js';
import type { RecordedEvent } from '#event-log/types.js';
import {
  postgresArchiveWrites,
  type ArchivedPartition,
  type ArchiveWrites,
} from './archive-writes.js';
import { writePartition } from '#audit-log/archive/write-partition.js';
import type { ArchiveFile } from '#audit-log/archive-folder.js';
import { BEGINNING } from '../prove/archived-ranges.js';
import { exportSpaceTree } from '../prove/export-tree.js';
import { EVENT_LEAVES } from '../event-leaf.js';
import { LOG_TREE } from '#audit-log/transparency/tree-head.js';

/** What became of one partition. */
export type ArchiveOutcome =
  | {
      readonly partition: string;
      readonly archived: true;
      readonly events: number;
      readonly files: readonly ArchiveFile[];
      readonly position: number;
    }
  /** Not yet: it still has events to seal or project, or a transaction that may still write it. */
  | {
      readonly partition: string;
      readonly archived: false;
      readonly reason: 'not_settled' | 'files_not_verified';
      readonly detail: string;
    };

/**
 * Archives each whole partition ending by `before`, oldest first: each space's events written to
 * `dir` (export format 2, files created exclusively) and verified, then in one transaction the
 * `events-archived` event, the range, and the partition dropped (no row-by-row DELETE). Runs as
 * the owner, who alone may drop a partition. Stops at the first partition not ready.
 */
export async function archivePartitions(
  db: Kysely<Database>,
  options: ServiceActor & {
    readonly before: Date;
    readonly dir: string;
    /** The one handler's archive command (commands/archive/record.ts), given by the caller. */
    readonly record: (
      store: EventStore<ArchiveWrites>,
      command: ArchiveCommand & { readonly rows: ArchivedPartition },
    ) => Promise<readonly RecordedEvent[]>;
  },
): Promise<ArchiveOutcome[]> {
  const due = await db
    .selectFrom('event_partitions')
    .select(['partition_name', 'starts_at', 'ends_at'])
    .where('ends_at', '<=', options.before)
    .where('ends_at', '<=', sql<Date>`now()`)
    .orderBy('ends_at')
    .execute();
  const outcomes: ArchiveOutcome[] = [];
  for (const partition of due) {
    const outcome = await archivePartition(db, partition, options);
    outcomes.push(outcome);
    if (!outcome.archived) break;
  }
  return outcomes;
}

async function archivePartition(
  db: Kysely<Database>,
  partition: { readonly partition_name: string; readonly starts_at: Date; readonly ends_at: Date },
  options: Parameters<typeof archivePartitions>[1],
): Promise<ArchiveOutcome> {
  const name = partition.partition_name;
  const table = sql.table(name);
  const from = Number.isFinite(Number(partition.starts_at)) ? partition.starts_at : BEGINNING;
  const unsettled = await unsettledReason(db, name, partition.ends_at);
  if (unsettled)
    return { partition: name, archived: false, reason: 'not_settled', detail: unsettled };

  const { rows: counts } = await sql<{ space_id: string; events: number }>`
    SELECT space_id, count(*)::int AS events FROM ${table} GROUP BY space_id ORDER BY space_id`.execute(
    db,
  );
  const shares = counts.map(({ space_id: spaceId, events }) => ({
    spaceId,
    events,
    lines: () =>
      exportSpaceTree(db, { spaceId, from, to: partition.ends_at, archiveDir: options.dir }),
  }));
  const bounds = { name, startsAt: partition.starts_at, endsAt: partition.ends_at };
  const done = await writePartition(options.dir, bounds, shares, EVENT_LEAVES);
  if (typeof done === 'string') {
    return { partition: name, archived: false, reason: 'files_not_verified', detail: done };
  }
  const { manifest, manifestSha256, written } = done;
  const files = manifest.files;
  const store = createEventStore(db, { writes: postgresArchiveWrites, listeners: [] });
  const [recorded] = await options.record(store, {
    eventId: randomUUID(),
    actor: options.actor,
    origin: options.origin,
    requestId: options.requestId,
    archive: { ...manifest, files: [...files], manifest_sha256: manifestSha256 },
    rows: { partition: name, startsAt: from, endsAt: partition.ends_at, files, written },
  });
  const position = recorded!.globalPosition;
  return { partition: name, archived: true, events: manifest.events, files, position };
}

/** Why the partition is not ready: an older transaction may still write, or events unsealed. */
async function unsettledReason(
  db: Kysely<Database>,
  name: string,
  endsAt: Date,
): Promise<string | undefined> {
  const table = sql.table(name);
  const { rows } = await sql<{
    open: number;
    unsealed: number;
    unprojected: number;
    unsigned: boolean;
  }>`
    WITH tip AS (
      SELECT last_transaction_id AS t, last_position AS p FROM log_seals
      ORDER BY seal_number DESC LIMIT 1),
    last AS (
      SELECT transaction_id AS t, global_position AS p FROM ${table}
      ORDER BY transaction_id DESC, global_position DESC LIMIT 1),
    holding AS (
      SELECT s.tree_size FROM log_seals s, last
      WHERE (s.last_transaction_id, s.last_position) >= (last.t, last.p)
      ORDER BY s.seal_number LIMIT 1)
    SELECT
      -- Its last leaf under no signed head of the log tree: archived, no tile or proof of it
      -- could ever be served against a checkpoint a witness saw (C2SP's minimum index ≤ size).
      coalesce((SELECT tree_size FROM holding) >
        (SELECT coalesce(max(tree_size), 0) FROM merkle_checkpoints WHERE space_id = ${LOG_TREE}),
        false) AS unsigned,
      (SELECT count(*)::int FROM pg_stat_activity
        WHERE xact_start < ${endsAt} AND backend_type = 'client backend'
          AND pid <> pg_backend_pid()) AS open,
      (SELECT count(*)::int FROM ${table} e
        WHERE NOT EXISTS (
          SELECT 1 FROM tip WHERE (e.transaction_id, e.global_position) <= (tip.t, tip.p))) AS unsealed,
      (SELECT count(*)::int FROM ${table} e, projection_checkpoints p
        WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position)) AS unprojected`.execute(
    db,
  );
  const row = rows[0]!;
  if (row.open > 0) return `${row.open} transaction(s) begun before its end are still open`;
  if (row.unsealed > 0) return `${row.unsealed} of its events are not sealed yet`;
  if (row.unprojected > 0) return `${row.unprojected} of its events are not projected yet`;
  if (row.unsigned) return 'its events are not all under a signed head of the log tree yet';
  return undefined;
}
