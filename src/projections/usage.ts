import { sql } from 'kysely';
import { EVENT_CATALOG } from '../domain/events.js';
import { typesWhere, type EventGroup } from '../domain/event-catalog.js';
import { inRange } from '#event-log/log-range.js';
import type { Projection } from './projection.js';

/** The event types `catalog` declares a use of their client's credential (`isUse`). */
export function usesOf(catalog: EventGroup): readonly string[] {
  return typesWhere(catalog, ({ isUse }) => isUse);
}

const USES = usesOf(EVENT_CATALOG);

/** When each client last got a token, kept by the projector so issuance updates no credential row. */
export const usageProjection: Projection = {
  name: 'usage',
  async applyRange(trx, range) {
    await sql`
      INSERT INTO credential_usage AS u (space_id, client_id, last_used_at)
      SELECT e.space_id, e.data->>'client_id', max(e.recorded_at)
      FROM events e
      WHERE ${inRange(range, 'e')} AND e.event_type = ANY(${USES}::text[])
      GROUP BY 1, 2
      ON CONFLICT (space_id, client_id)
        DO UPDATE SET last_used_at = greatest(u.last_used_at, excluded.last_used_at)`.execute(trx);
  },
  async reset(trx) {
    await trx.deleteFrom('credential_usage').execute();
  },
};
