import { sql } from 'kysely';
import { inRange } from '#event-log/log-range.js';
import type { Projection } from './projection.js';

/** Issuances per client, scope and hour (`client_scope_rate_hour`), bucketed by recorded_at. */
export const scopeRatesProjection: Projection = {
  name: 'scope-rates',
  async applyRange(trx, range) {
    await sql`
      INSERT INTO client_scope_rate_hour AS r (space_id, client_id, scope, bucket_start,
        private_tokens, public_tokens)
      SELECT e.space_id, e.data->>'client_id', s.scope,
             date_bin('1 hour'::interval, e.recorded_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'),
             count(*) FILTER (WHERE e.event_type = 'private-token-issued'),
             count(*) FILTER (WHERE e.event_type = 'public-token-issued')
      FROM events e
      CROSS JOIN LATERAL regexp_split_to_table(e.data->>'scope', ' ') AS s(scope)
      WHERE ${inRange(range, 'e')}
        AND e.event_type IN ('private-token-issued', 'public-token-issued')
        AND e.data ? 'scope'
      GROUP BY 1, 2, 3, 4
      ON CONFLICT (space_id, client_id, scope, bucket_start) DO UPDATE SET
        private_tokens = r.private_tokens + excluded.private_tokens,
        public_tokens = r.public_tokens + excluded.public_tokens`.execute(trx);
  },
  async reset(trx) {
    await trx.deleteFrom('client_scope_rate_hour').execute();
  },
};
