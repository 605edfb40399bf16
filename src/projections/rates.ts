import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { EVENT_CATALOG } from '../domain/events.js';
import { typesWhere, type EventGroup } from '../domain/event-catalog.js';
import type { RateCounter } from '../domain/event-data/declaration.js';
import { inRange, type LogRange } from '#event-log/log-range.js';
import type { Projection } from './projection.js';

/** What the rate views count, as a catalog declares it (each type's `rate`). */
export interface RateCounting {
  readonly counted: readonly string[];
  /** SQL for how much `alias`'s events add to `counter`: 1 each, or their count fields. */
  sumOf(counter: RateCounter, alias: string): string;
}

/** The rate views' counting as `catalog` declares it (the projection's: the service's catalog). */
export function rateCountingOf(catalog: EventGroup): RateCounting {
  return {
    counted: typesWhere(catalog, ({ rate }) => rate !== null),
    sumOf(counter, alias) {
      const branches = typesWhere(catalog, ({ rate }) => rate?.counter === counter).map((type) => {
        const fields: readonly string[] = catalog[type]!.rate?.countFields ?? [];
        const weight =
          fields.length === 0
            ? '1'
            : fields
                .map((field) => `coalesce((${alias}.data->>'${field}')::bigint, 0)`)
                .join(' + ');
        return `WHEN '${type}' THEN ${weight}`;
      });
      return branches.length === 0
        ? '0'
        : `coalesce(sum(CASE ${alias}.event_type ${branches.join(' ')} END), 0)`;
    },
  };
}

const RATES = rateCountingOf(EVENT_CATALOG);

/** Buckets are aligned to UTC whatever the session time zone: date_bin from the epoch. */
async function addBuckets(
  trx: Transaction<Database>,
  range: LogRange,
  table: 'client_rate_minute' | 'client_rate_hour',
  width: '1 minute' | '1 hour',
): Promise<void> {
  // Event type names and field names come from the catalog, never from a request.
  const count = (counter: RateCounter) => sql.raw(RATES.sumOf(counter, 'e'));
  await sql`
    INSERT INTO ${sql.table(table)} AS r (space_id, client_id, bucket_start, private_tokens,
      public_tokens, rejected_authentications)
    SELECT e.space_id, e.data->>'client_id',
           date_bin(${width}::interval, e.recorded_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'),
           ${count('private_tokens')}, ${count('public_tokens')}, ${count('rejected_authentications')}
    FROM events e
    WHERE ${inRange(range, 'e')}
      AND e.event_type = ANY(${RATES.counted}::text[])
    GROUP BY 1, 2, 3
    ON CONFLICT (space_id, client_id, bucket_start) DO UPDATE SET
      private_tokens = r.private_tokens + excluded.private_tokens,
      public_tokens = r.public_tokens + excluded.public_tokens,
      rejected_authentications = r.rejected_authentications + excluded.rejected_authentications`.execute(
    trx,
  );
}

/** Per-client counts per minute and hour, bucketed by recorded_at (never now()): rebuilds reproduce. */
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

/** Drops rate buckets past their retention (the log keeps the events); returns rows removed. */
export async function purgeOldRates(db: Kysely<Database>, horizons: RateHorizons): Promise<number> {
  const purge = async (
    table: 'client_rate_minute' | 'client_rate_hour' | 'client_scope_rate_hour',
    horizon: ReturnType<typeof sql<Date>>,
  ) =>
    Number(
      (await db.deleteFrom(table).where('bucket_start', '<', horizon).executeTakeFirst())
        .numDeletedRows,
    );
  const days = sql<Date>`now() - make_interval(days => ${horizons.hourBucketsDays})`;
  return (
    (await purge(
      'client_rate_minute',
      sql<Date>`now() - make_interval(hours => ${horizons.minuteBucketsHours})`,
    )) +
    (await purge('client_rate_hour', days)) +
    (await purge('client_scope_rate_hour', days))
  );
}
