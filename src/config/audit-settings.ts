import { z } from 'zod';

/**
 * The audit trail's settings (part of configSchema, config.ts): live feeds, proof reads, signed
 * tree heads and witnesses, the audit key, and delivery to sinks.
 */
export const auditTrailSettings = {
  // Live audit feeds each API process serves at once (one shared poll of the log feeds them all),
  // and of those, how many one space and one user may hold: no tenant takes every slot.
  AUDIT_STREAM_MAX: z.coerce.number().int().min(0).max(10_000).default(100),
  AUDIT_STREAM_MAX_PER_SPACE: z.coerce.number().int().min(1).max(10_000).default(10),
  AUDIT_STREAM_MAX_PER_USER: z.coerce.number().int().min(1).max(10_000).default(3),
  // Audit proof reads (tree heads, inclusion and consistency proofs) one user (login issuer and
  // subject) may make a minute in one API process; past it, 429.
  AUDIT_PROOF_READS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  // How often an open feed's login token is verified again (it also ends at the token's exp).
  AUDIT_STREAM_REAUTHORIZE_SECONDS: z.coerce.number().int().min(1).max(60).default(60),
  AUDIT_STREAM_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  AUDIT_CHECKPOINT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  AUDIT_CHECKPOINT_DIR: z.string().min(1).optional(),
  // Witnesses the projector sends every signed tree head to (C2SP tlog-witness), comma-separated
  // `<add-checkpoint URL> <witness verifier key>`; their cosignatures are kept beside the heads.
  AUDIT_WITNESSES: z.string().min(1).optional(),
  /** The audit key's private Ed25519 JWK, or `file:<path>` of a file holding it. */
  AUDIT_SIGNING_KEY: z.string().min(1).optional(),
  /** The audit key's public JWK (or `file:<path>`): all the API needs of the audit key. */
  AUDIT_PUBLIC_KEY: z.string().min(1).optional(),
  /**
   * The operator's audit sinks for the whole deployment (`npm run deliver`): a JSON array, or
   * `file:<path>`; each webhook's `secret` and syslog `ca` may themselves be `file:<path>`.
   */
  AUDIT_SINKS: z.string().min(1).optional(),
  /** Events per delivery to a sink: with one batch in flight per sink, this bounds memory. */
  SINK_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  /** One delivery attempt's bound (connect, send, acknowledgement). */
  SINK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Failed attempts in a row (backoff from 0.5 s, doubling to 60 s) after which a sink pauses. */
  SINK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(12),
};
