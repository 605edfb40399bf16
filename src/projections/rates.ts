import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { EVENT_TYPES, type EventType } from '../domain/events.js';
import { inRange, type LogRange } from '../event-store/log-range.js';
import type { Projection } from './projection.js';

/** The counters of the rate views. */
export type RateCounter = 'private_tokens' | 'public_tokens' | 'rejected_authentications';

/**
 * Which counter each event type adds one to, or null for types that are not a rate. Keyed on the
 * registry: a new event type does not compile until it says whether it counts.
 */
export const RATE_COUNTER: { readonly [Type in EventType]: RateCounter | null } = {
  'credential-created': null,
  'private-token-issued': 'private_tokens',
  'public-token-issued': 'public_tokens',
  'client-authentication-failed': 'rejected_authentications',
  'credential-secret-rotated': null,
  'credential-revoked': null,
  'token-revoked': null,
  'signing-key-generated': null,
  'signing-key-retired': null,
};

/** The event types that add to `counter`. */
export function typesCounting(counter: RateCounter): EventType[] {
  return EVENT_TYPES.filter((type) => RATE_COUNTER[type] === counter);
}

const COUNTED = EVENT_TYPES.filter((type) => RATE_COUNTER[type] !== null);

/** Buckets are aligned to UTC whatever the session time zone: date_bin from the epoch. */
async function addBuckets(
  trx: Transaction<Database>,
  range: LogRange,
  table: 'client_rate_minute' | 'client_rate_hour',
  width: '1 minute' | '1 hour',
): Promise<void> {
  const count = (counter: RateCounter) =>
    sql`count(*) FILTER (WHERE e.event_type = ANY(${typesCounting(counter)}::text[]))`;
  await sql`
    INSERT INTO ${sql.table(table)} AS r (space_id, client_id, bucket_start, private_tokens,
      public_tokens, rejected_authentications)
    SELECT e.space_id, e.data->>'client_id',
           date_bin(${width}::interval, e.recorded_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'),
           ${count('private_tokens')}, ${count('public_tokens')}, ${count('rejected_authentications')}
    FROM events e
    WHERE ${inRange(range, 'e')}
      AND e.event_type = ANY(${COUNTED}::text[])
    GROUP BY 1, 2, 3
    ON CONFLICT (space_id, client_id, bucket_start) DO UPDATE SET
      private_tokens = r.private_tokens + excluded.private_tokens,
      public_tokens = r.public_tokens + excluded.public_tokens,
      rejected_authentications = r.rejected_authentications + excluded.rejected_authentications`.execute(
    trx,
  );
}

/**
 * Per-client counts per minute and per hour of private tokens, public tokens and rejected
 * authentications, bucketed by each event's recorded_at (never now()), so a rebuild reproduces
 * the same rows.
 */
export const ratesProjection: Projection = {
  name: 'rates',
  async applyRange(trx, range) {
    await addBuckets(trx, range, 'client_rate_minute', '1 minute');
    await addBuckets(trx, range, 'client_rate_hour', '1 hour');
  },
  async reset(trx) {
    await trx.deleteFrom('client_rate_minute').execute();
    await trx.deleteFrom('client_rate_hour').execute();
  },
};
