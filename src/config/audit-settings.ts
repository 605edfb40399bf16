import { integer, nonEmpty, optional } from '#settings/setting-types.js';

const feeds = (min: number, fallback: number) => integer(min, 10_000, fallback);

/**
 * The audit trail: live feeds, proof reads, signed tree heads and witnesses, and the audit key.
 * Delivery to sinks: delivery-settings.ts.
 */
export const auditTrailSettings = {
  // One shared poll of the log feeds them all.
  AUDIT_STREAM_MAX: feeds(0, 100).describe(
    'Live audit feeds (`GET /v1/audit/stream`) each API process serves at once; one more gets 503 with `Retry-After`.',
  ),
  AUDIT_STREAM_MAX_PER_SPACE: feeds(1, 10).describe(
    'Of those, how many one space may hold (429 past it): no tenant takes every slot.',
  ),
  AUDIT_STREAM_MAX_PER_USER: feeds(1, 3).describe(
    'Of those, how many one user (login issuer and subject) may hold (429 past it).',
  ),
  AUDIT_PROOF_READS_PER_MINUTE: integer(1, 100_000, 120).describe(
    'Audit proof reads (tree heads, inclusion and consistency proofs) one user may make a minute in one API process (429 past it); each is recorded before it is looked up.',
  ),
  AUDIT_STREAM_REAUTHORIZE_SECONDS: integer(1, 60, 60).describe(
    "How often, in seconds, an open feed's login token is verified again and its space grant checked; a feed also ends at the token's `exp`, with a `stream-ended` event saying why.",
  ),
  AUDIT_STREAM_HEARTBEAT_SECONDS: integer(1, 300, 15).describe(
    'A comment line is sent on a quiet audit feed this often, in seconds, so proxies do not close it.',
  ),
  AUDIT_CHECKPOINT_INTERVAL_SECONDS: integer(1, 86_400, 60).describe(
    "How often, in seconds, the projector signs the audit trail's heads (and at shutdown); the log tree's heads are served once a window of this length has passed.",
  ),
  AUDIT_CHECKPOINT_DIR: optional(nonEmpty, '`DATA_DIR/audit-checkpoints`').describe(
    'Where signed checkpoints are written as files, never rewritten (write-once storage is best).',
  ),
  AUDIT_WITNESSES: optional(nonEmpty, 'no witnesses').describe(
    'Comma-separated `<add-checkpoint URL> <witness verifier key>`: the projector sends every signed tree head (each space\'s and the log\'s) to these witnesses (C2SP tlog-witness) with a consistency proof from the last one each cosigned, and keeps their cosignatures (docs/compliance.md, "Witnesses").',
  ),
  AUDIT_WITNESS_QUORUM: optional(nonEmpty, 'every witness of `AUDIT_WITNESSES`').describe(
    'How many of `AUDIT_WITNESSES` must cosign a checkpoint for a verifier to trust it: the quorum of the published C2SP tlog-policy (`/audit/log/policy`), and of the heads token receipts are proven against.',
  ),
  AUDIT_SIGNING_KEY: optional(nonEmpty, 'generated into `DATA_DIR/audit-key.json`').describe(
    "The audit key's private Ed25519 JWK (or `file:<path>` of a file holding it) that signs the audit trail's heads (not a token key): the projector's alone, the same on every projector replica.",
  ),
  AUDIT_PUBLIC_KEY: optional(
    nonEmpty,
    "`DATA_DIR/audit-public/audit-key.pub.json`, written with the generated key in a folder of its own, so a deployment shares it with the API without the private key's folder",
  ).describe(
    "The audit key's public JWK (or `file:<path>`): all the API needs of the audit key, served at `/v1/audit/checkpoints`; the API never reads the private key.",
  ),
};
