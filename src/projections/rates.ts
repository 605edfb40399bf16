import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { EVENT_TYPES, type EventData, type EventType } from '../domain/events.js';
import { inRange, type LogRange } from '../event-store/log-range.js';
import type { Projection } from './projection.js';

/** The counters of the rate views. */
export type RateCounter = 'private_tokens' | 'public_tokens' | 'rejected_authentications';

/** How one event type adds to the rate views. */
export interface RateContribution<Type extends EventType> {
  readonly counter: RateCounter;
  /** Numeric data fields whose sum is the event's count; absent: the event counts as one. */
  readonly countFields?: readonly (keyof EventData<Type> & string)[];
}

/**
 * What each event type adds to the rate views, or null for types that are not a rate. Keyed on
 * the registry: a new event type does not compile until it says whether it counts.
 */
export const RATE_COUNTER: { readonly [Type in EventType]: RateContribution<Type> | null } = {
  'credential-created': null,
  'private-token-issued': { counter: 'private_tokens' },
  'public-token-issued': { counter: 'public_tokens' },
  'client-authentication-failed': { counter: 'rejected_authentications' },
  'credential-secret-rotated': null,
  'credential-revoked': null,
  'credential-keys-changed': null,
  'token-revoked': null,
  'signing-key-generated': null,
  'signing-key-retired': null,
  'signing-keys-resealed': null,
  'credential-rate-limit-changed': null,
  'credential-scopes-changed': null,
  'client-authentication-failures-summarized': {
    counter: 'rejected_authentications',
    countFields: ['failed', 'refused_while_locked_out'],
  },
  // Not a client's: a login-token refusal names a user, and the rate views are per client.
  'access-refused': null,
  'access-refusals-summarized': null,
  'audit-log-read': null,
  'credential-secret-replayed': null,
  'events-archived': null,
  'sink-created': null,
  'sink-changed': null,
  'sink-paused': null,
  'sink-resumed': null,
  'sink-deleted': null,
};

/** The event types that add to `counter`. */
function typesCounting(counter: RateCounter): EventType[] {
  return EVENT_TYPES.filter((type) => RATE_COUNTER[type]?.counter === counter);
}

/**
 * SQL for how much the events of `alias` add to `counter`: 1 per event, or the sum of its count
 * fields.
 */
function counterSql(counter: RateCounter, alias: string): string {
  const branches = typesCounting(counter).map((type) => {
    const fields: readonly string[] = RATE_COUNTER[type]?.countFields ?? [];
    const weight =
      fields.length === 0
        ? '1'
        : fields.map((field) => `coalesce((${alias}.data->>'${field}')::bigint, 0)`).join(' + ');
    return `WHEN '${type}' THEN ${weight}`;
  });
  return branches.length === 0
    ? '0'
    : `coalesce(sum(CASE ${alias}.event_type ${branches.join(' ')} END), 0)`;
}

const COUNTED = EVENT_TYPES.filter((type) => RATE_COUNTER[type] !== null);

/** Buckets are aligned to UTC whatever the session time zone: date_bin from the epoch. */
async function addBuckets(
  trx: Transaction<Database>,
  range: LogRange,
  table: 'client_rate_minute' | 'client_rate_hour',
  width: '1 minute' | '1 hour',
): Promise<void> {
  // Event type names and field names come from the registry, never from a request.
  const count = (counter: RateCounter) => sql.raw(counterSql(counter, 'e'));
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

/** How long each rate view keeps its buckets. */
export interface RateHorizons {
  readonly minuteBucketsHours: number;
  readonly hourBucketsDays: number;
}

/**
 * Drops rate buckets past their horizon (per-minute after RATE_MINUTE_RETENTION_HOURS, per-hour
 * after RATE_HOUR_RETENTION_DAYS): the views stay the size of their window, whatever the traffic.
 * The events they counted stay in the log; a rebuild counts them again. Run by the projector's
 * leader. Returns rows removed.
 */
export async function purgeOldRates(db: Kysely<Database>, horizons: RateHorizons): Promise<number> {
  const minute = await db
    .deleteFrom('client_rate_minute')
    .where(
      'bucket_start',
      '<',
      sql<Date>`now() - make_interval(hours => ${horizons.minuteBucketsHours})`,
    )
    .executeTakeFirst();
  const hour = await db
    .deleteFrom('client_rate_hour')
    .where(
      'bucket_start',
      '<',
      sql<Date>`now() - make_interval(days => ${horizons.hourBucketsDays})`,
    )
    .executeTakeFirst();
  const scopes = await db
    .deleteFrom('client_scope_rate_hour')
    .where(
      'bucket_start',
      '<',
      sql<Date>`now() - make_interval(days => ${horizons.hourBucketsDays})`,
    )
    .executeTakeFirst();
  return (
    Number(minute.numDeletedRows) + Number(hour.numDeletedRows) + Number(scopes.numDeletedRows)
  );
}
