import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * `count` private-token issuances in one transaction, straight into the log (no API): token g in
 * space `space-(g % spaces)` for client `client-(g % clients)`, as a history import writes them.
 */
export async function insertIssuances(
  db: Kysely<Database>,
  { count, spaces, clients }: { count: number; spaces: number; clients: number },
): Promise<void> {
  await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
    SELECT 'space-' || (g % ${spaces}::int), 'token-' || g, 1, gen_random_uuid(),
           'private-token-issued', jsonb_build_object('client_id', 'client-' || (g % ${clients}::int))
    FROM generate_series(1, ${count}::int) g`.execute(db);
}
