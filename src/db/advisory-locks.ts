import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Every Postgres advisory-lock key this service takes, one per purpose: two unrelated locks must
 * never share a key, or one waits on the other for nothing (or a health check reads the wrong one).
 * It holds the SQL's keys too: a migration or SQL function names its key as a literal (SQL cannot
 * import), and {@link ADVISORY_LOCK_IN_SQL} says which functions may; test/unit/advisory-locks.test.ts
 * reads every `pg_advisory*` call of the migrations and of the code and holds it to this file.
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
  /**
   * Transaction lock, tried (never waited on): one session at a time makes the log's partitions;
   * the others skip their round. Until issue 49 this purpose shared the deliverer's key, and every
   * caller waited on the deliverer whenever a partition was due.
   */
  eventPartitions: 7_214_903_316,
} as const;

/** A purpose of {@link ADVISORY_LOCK}. */
export type AdvisoryLockPurpose = keyof typeof ADVISORY_LOCK;

/** The SQL functions (as the last migration defining them has them) that take each key. */
export const ADVISORY_LOCK_IN_SQL: Readonly<
  Partial<Record<AdvisoryLockPurpose, readonly string[]>>
> = { eventPartitions: ['ensure_event_partitions'] };

/**
 * Transaction locks of one space, by purpose, keyed `hashtextextended('/<prefix>/<space>', 0)`.
 * Stream locks hash `<space>/<stream>` (packages/event-log/src/append-to-stream.ts) into the same key
 * space, and a space id begins with a letter or digit: the leading `/` keeps every name here
 * apart from every stream's (a space named `trusted-issuers` once shared its streams' names with
 * other spaces' issuer locks), the prefix keeps the purposes apart.
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
