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
