import { z } from 'zod';
import { settingNotes } from './setting-notes.js';

/** Delivery of the audit trail to the operator's sinks, `npm run deliver` (part of configSchema). */
export const deliverySettings = {
  AUDIT_SINKS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The operator\'s audit sinks for the whole deployment (docs/operations.md, "Delivering the audit trail"): a JSON array of `{"id","kind":"webhook","url","secret":"whsec_…"}` or `{"id","kind":"syslog","host","port","tls","ca"}`, or `file:<path>`; `secret` and `ca` may be `file:<path>`.',
    )
    .register(settingNotes, { defaultNote: 'no operator sinks' }),
  SINK_BATCH_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(500)
    .describe(
      'Events per delivery to a sink; with one batch in flight per sink, this bounds memory.',
    ),
  SINK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe("One delivery attempt's bound (connect, send, acknowledgement), in milliseconds."),
  SINK_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(12)
    .describe(
      'Failed deliveries in a row (backoff from 0.5 s doubling to 60 s, jittered) after which a sink is paused (`sink-paused`).',
    ),
  SINK_LINGER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1000)
    .describe(
      "After a batch that reached the log's end, how long a sink waits for more before its next read, in milliseconds: under load it gets few full batches instead of one per commit (a backlog never waits). Adds at most this much to a sink's lag; 0 reads again at once.",
    ),
};
