import { sql } from 'kysely';
import { EVENT_TYPES, type EventType } from '../domain/events.js';
import { inRange } from '../event-store/log-range.js';
import type { Projection } from './projection.js';

/**
 * Whether an event type is a use of its client's credential. Keyed on the registry: a new event
 * type does not compile until it says.
 */
export const IS_USE: { readonly [Type in EventType]: boolean } = {
  'credential-created': false,
  'private-token-issued': true,
  'public-token-issued': true,
  'client-authentication-failed': false,
  'credential-secret-rotated': false,
  'credential-revoked': false,
  'credential-keys-changed': false,
  'token-revoked': false,
  'signing-key-generated': false,
  'signing-key-retired': false,
  'signing-keys-resealed': false,
  'credential-rate-limit-changed': false,
  'credential-scopes-changed': false,
  'client-authentication-failures-summarized': false,
  'access-refused': false,
  'access-refusals-summarized': false,
  'audit-log-read': false,
  'credential-secret-replayed': false,
  'events-archived': false,
  'sink-created': false,
  'sink-changed': false,
  'sink-paused': false,
  'sink-resumed': false,
  'sink-deleted': false,
};

const USES = EVENT_TYPES.filter((type) => IS_USE[type]);

/**
 * When each client last got a token (`last_used_at` of the credential API). Kept by the projector
 * so that issuance never updates a per-credential row, which every concurrent issuance for that
 * client would queue on.
 */
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
