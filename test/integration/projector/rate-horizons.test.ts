import { describe, expect, it } from 'vitest';
import { purgeOldRates } from '../../../src/projections/rates.js';
import { createTestDatabase } from '../../support/test-database.js';

describe('rate views with horizons', () => {
  it('drop per-minute buckets past their hours and per-hour buckets past their days, nothing else', async () => {
    const database = await createTestDatabase(2);
    const insert = (table: string, age: string) =>
      database.pool.query(
        `INSERT INTO ${table} (space_id, client_id, bucket_start, private_tokens, public_tokens,
                               rejected_authentications)
         VALUES ('s', 'ci_' || md5(random()::text), date_trunc('minute', now() - $1::interval), 1, 0, 0)`,
        [age],
      );
    await insert('client_rate_minute', '49 hours');
    await insert('client_rate_minute', '47 hours');
    await insert('client_rate_hour', '91 days');
    await insert('client_rate_hour', '89 days');
    const removed = await purgeOldRates(database.db, {
      minuteBucketsHours: 48,
      hourBucketsDays: 90,
    });
    expect(removed).toBe(2);
    const count = async (table: string) =>
      (await database.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!
        .n;
    expect(await count('client_rate_minute')).toBe(1);
    expect(await count('client_rate_hour')).toBe(1);
  });
});
