import { sql, type Transaction } from 'kysely';
import { EVENT_LOG_LOCKS } from '#event-log/schema.js';
import type { Database } from './schema.js';

/**
 * Every advisory-lock key, one per purpose (shared keys would wait on each other for nothing). SQL
 * names its keys as literals, only in {@link ADVISORY_LOCK_IN_SQL}; advisory-locks.test.ts checks.
 */
export const ADVISORY_LOCK = {
  /** Transaction lock: processes starting together apply each migration once. */
  migrations: 7_214_903_311,
  /** Session lock: the projector replica that holds it leads. */
  projectorLeader: 7_214_903_312,
  /** Transaction lock: signing-key decisions read the key ring and change it one at a time. */
  signingKeys: 7_214_903_313,
  /** Transaction lock: processes starting together create or alter the service logins once. */
  serviceLogins: 7_214_903_314,
  /** Session lock: the deliverer process that holds it delivers to every audit sink. */
  deliverer: 7_214_903_315,
  /** Transaction lock, tried never waited: one session makes the partitions, others skip the round. */
  eventPartitions: EVENT_LOG_LOCKS.partitions,
  /** Transaction lock: processes starting together apply each of the event log's migrations once. */
  eventLogMigrations: EVENT_LOG_LOCKS.migrations,
} as const;

/** A purpose of {@link ADVISORY_LOCK}. */
export type AdvisoryLockPurpose = keyof typeof ADVISORY_LOCK;

/**
 * The SQL functions (as the last migration defining them has them, the event log's after the
 * service's) that take each key.
 */
export const ADVISORY_LOCK_IN_SQL: Readonly<
  Partial<Record<AdvisoryLockPurpose, readonly string[]>>
> = { eventPartitions: ['ensure_event_partitions'] };

/**
 * Per-space transaction locks keyed `hashtextextended('/<prefix>/<space>', 0)`. The leading `/`
 * keeps them apart from stream locks (`<space>/<stream>`, packages/event-log): a space id starts
 * with a letter or digit.
 */
export const SPACE_LOCK_PREFIX = {
  /** Changes to a space's trusted issuers, one at a time: two adds of one `iss` cannot both pass. */
  trustedIssuers: 'trusted-issuers',
  /** Sink creations in a space, one at a time: its sink limit holds. */
  sinkLimit: 'sink-limit',
} as const;

/** A purpose of {@link SPACE_LOCK_PREFIX}. */
export type SpaceLockPurpose = keyof typeof SPACE_LOCK_PREFIX;

/** The text whose hash is `purpose`'s lock key in `spaceId`. */
export const spaceLockName = (purpose: SpaceLockPurpose, spaceId: string): string =>
  `/${SPACE_LOCK_PREFIX[purpose]}/${spaceId}`;

/** Takes `purpose`'s lock of `spaceId` until `trx` ends. */
export async function lockSpaceFor(
  trx: Transaction<Database>,
  purpose: SpaceLockPurpose,
  spaceId: string,
): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${spaceLockName(purpose, spaceId)}, 0))`.execute(
    trx,
  );
}
