import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseEventData } from '../domain/events.js';
import type { RecordedEvent } from '../event-store/types.js';
import type { Projection } from './projection.js';

type Counter = 'private_tokens' | 'public_tokens' | 'rejected_authentications';

const COUNTER_BY_TYPE: Readonly<Record<string, Counter>> = {
  'private-token-issued': 'private_tokens',
  'public-token-issued': 'public_tokens',
  'client-authentication-failed': 'rejected_authentications',
};

/** Start of the minute / hour an instant falls in (UTC), from the event's own time. */
export function bucketStart(at: Date, granularity: 'minute' | 'hour'): Date {
  const size = granularity === 'minute' ? 60_000 : 3_600_000;
  return new Date(Math.floor(at.getTime() / size) * size);
}

interface Bucket {
  space_id: string;
  client_id: string;
  bucket_start: Date;
  private_tokens: number;
  public_tokens: number;
  rejected_authentications: number;
}

/** Sums a batch into buckets so each bucket row is written once per batch. */
export function countIntoBuckets(
  events: readonly RecordedEvent[],
  granularity: 'minute' | 'hour',
): Bucket[] {
  const buckets = new Map<string, Bucket>();
  for (const event of events) {
    const counter = COUNTER_BY_TYPE[event.type];
    if (!counter) continue;
    const { client_id } = parseEventData(event.type, event.data) as { client_id: string };
    const start = bucketStart(event.recordedAt, granularity);
    const key = `${event.spaceId}\u0000${client_id}\u0000${start.getTime()}`;
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = {
        space_id: event.spaceId,
        client_id,
        bucket_start: start,
        private_tokens: 0,
        public_tokens: 0,
        rejected_authentications: 0,
      };
      buckets.set(key, bucket);
    }
    bucket[counter] += 1;
  }
  return [...buckets.values()];
}

async function addBuckets(
  trx: Transaction<Database>,
  table: 'client_rate_minute' | 'client_rate_hour',
  buckets: Bucket[],
): Promise<void> {
  for (let i = 0; i < buckets.length; i += 1000) {
    await trx
      .insertInto(table)
      .values(buckets.slice(i, i + 1000))
      .onConflict((oc) =>
        oc.columns(['space_id', 'client_id', 'bucket_start']).doUpdateSet({
          private_tokens: sql`${sql.table(table)}.private_tokens + excluded.private_tokens`,
          public_tokens: sql`${sql.table(table)}.public_tokens + excluded.public_tokens`,
          rejected_authentications: sql`${sql.table(table)}.rejected_authentications + excluded.rejected_authentications`,
        }),
      )
      .execute();
  }
}

/** Per-client counts per minute and per hour: private, public, rejected authentications. */
export const ratesProjection: Projection = {
  name: 'rates',
  async apply(trx, events) {
    await addBuckets(trx, 'client_rate_minute', countIntoBuckets(events, 'minute'));
    await addBuckets(trx, 'client_rate_hour', countIntoBuckets(events, 'hour'));
  },
  async reset(trx) {
    await trx.deleteFrom('client_rate_minute').execute();
    await trx.deleteFrom('client_rate_hour').execute();
  },
};
