/**
 * Every Postgres advisory-lock key this service takes, one per purpose: two unrelated locks must
 * never share a key, or one waits on the other for nothing (or a health check reads the wrong one).
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
} as const;
