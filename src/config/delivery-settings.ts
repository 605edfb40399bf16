import { addressList, integer, nonEmpty, optional } from '#settings/setting-types.js';

const allowedTargets = addressList(
  'expected host names, addresses or CIDR blocks (10.20.0.0/16), never a /0',
  true,
);

/** Delivery of the audit trail to the operator's sinks, `npm run deliver`. */
export const deliverySettings = {
  AUDIT_SINKS: optional(nonEmpty, 'no operator sinks').describe(
    'The operator\'s audit sinks for the whole deployment (docs/operations.md, "Delivering the audit trail"): a JSON array of `{"id","kind":"webhook","url","secret":"whsec_…"}` or `{"id","kind":"syslog","host","port","tls","ca"}`, or `file:<path>`; `secret` and `ca` may be `file:<path>`.',
  ),
  SINK_ALLOW_TARGETS: optional(
    allowedTargets,
    'production: public addresses and TLS only',
  ).describe(
    'Comma-separated host names, addresses and CIDR blocks (`siem.internal,10.20.0.0/16,fd12::/48`) that sinks may reach with `NODE_ENV=production` though they are loopback, private (10/8, 172.16/12, 192.168/16), shared (100.64/10) or unique-local (fc00::/7), and without TLS (syslog without `"tls": true`, a webhook over http). A block is matched against the address a sink\'s name resolves to at each connection; a plaintext sink must be named (its host) or an address in a block. Never allows the metadata service (169.254/16, 100.100.100.200, fd00:ec2::254) or the service\'s own ports.',
  ),
  SINK_MAX_PER_SPACE: integer(0, 1000, 10).describe(
    "Audit sinks one space may have (deleted ones not counted); `POST /v1/sinks` past it answers 409 `conflict`. Each sink costs the deliverer a loop and reads of the log every tenant shares; 0 lets no space make one (the operator's AUDIT_SINKS are not counted).",
  ),
  SINK_BATCH_SIZE: integer(1, 5000, 500).describe(
    'Events per delivery to a sink; with one batch in flight per sink, this bounds memory.',
  ),
  SINK_TIMEOUT_MS: integer(100, 120_000, 10_000).describe(
    "One delivery attempt's bound (connect, send, acknowledgement), in milliseconds.",
  ),
  SINK_MAX_ATTEMPTS: integer(1, 1000, 12).describe(
    'Failed deliveries in a row (backoff from 0.5 s doubling to 60 s, jittered) after which a sink is paused (`sink-paused`).',
  ),
  SINK_LINGER_MS: integer(0, 60_000, 1000).describe(
    "After a batch that reached the log's end, how long a sink waits for more before its next read, in milliseconds: under load it gets few full batches instead of one per commit (a backlog never waits). Adds at most this much to a sink's lag; 0 reads again at once.",
  ),
};
