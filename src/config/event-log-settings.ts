import { z } from 'zod';
import { integer, nonEmpty, optional } from '#settings/setting-types.js';

// A Postgres interval, written to the database by the migration step.
const interval = (fallback: string) =>
  z
    .string()
    .regex(
      /^[1-9]\d{0,4} (minute|hour|day|week|month|year)s?$/,
      'a Postgres interval such as "1 month", "7 days" or "1 minute"',
    )
    .default(fallback);
// Fractions allowed, for drills.
const days = (fallback: number) => z.coerce.number().positive().max(36_500).default(fallback);

/** The event log's appends, partitions and archives, and the projector. */
export const eventLogSettings = {
  APPEND_QUEUE_LIMIT: integer(1, 1_000_000, 10_000).describe(
    "Issuances waiting for a group commit, per API process, a quarter of it per space; past it new ones get 503 at once. The PKCS#11 signer's queue has the same bounds.",
  ),
  EVENT_PARTITION_INTERVAL: interval('1 month').describe(
    'The time each partition of the event log covers: `<n> minute(s)|hour(s)|day(s)|week(s)|month(s)|year(s)`, applied by the migration step.',
  ),
  EVENT_PARTITIONS_AHEAD: integer(1, 1000, 3).describe(
    'Partitions kept ready after the current one, so an append never finds none; every API and projector process creates what is due every 10 s.',
  ),
  ARCHIVE_DIR: optional(nonEmpty, 'no archives').describe(
    "Where `npm run archive` (and the projector's leader, with `RETENTION_HOT_DAYS`) writes archived partitions: gzipped NDJSON per space and partition, a `manifest.json` each, never rewritten. An API process that can read it (mounted read-only) answers space-tree proofs over archived events from these files.",
  ),
  RETENTION_HOT_DAYS: days(90).describe(
    'With `ARCHIVE_DIR` and `MIGRATION_DATABASE_URL` set for the projector, its leader archives every partition that ended more than this many days ago (fractions allowed, for drills).',
  ),
  PROJECTOR_POLL_INTERVAL_MS: integer(10, 60_000, 500).describe(
    "The projector's fallback poll, in milliseconds, when no notification arrives.",
  ),
  PROJECTOR_BATCH_SIZE: integer(1, 10_000, 1000).describe('Events per projector transaction.'),
  // A batch's fixed cost (locks, the checkpoint, a seal row per space) spread over more events.
  PROJECTOR_CATCH_UP_FACTOR: integer(1, 16, 8).describe(
    'While the projector is behind (each batch full), the next batch doubles, up to this many times PROJECTOR_BATCH_SIZE: a bulk import is caught up at several times the steady rate.',
  ),
  // A seal is one row per range and space, so a trickle of traffic does not cost a row per event.
  SEAL_INTERVAL_MS: integer(0, 60_000, 1000).describe(
    'The log is sealed at most this often, in milliseconds (at once after a full batch): it bounds the seal rows at a trickle of traffic, and is about the longest an event waits to be sealed.',
  ),
  RATE_MINUTE_RETENTION_HOURS: integer(1, 8760, 48).describe(
    "Hours the per-minute rate view keeps its buckets (the projector's leader drops older ones; the events stay in the log).",
  ),
  RATE_HOUR_RETENTION_DAYS: integer(1, 3650, 90).describe(
    'Days the per-hour rate view keeps its buckets.',
  ),
  PROJECTOR_HEALTH_MAX_LAG_SECONDS: integer(1, 86_400, 60).describe(
    '`npm run projector-health` fails when a view is further behind than this many seconds.',
  ),
};
