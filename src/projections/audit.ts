import { sql } from 'kysely';
import { inRange } from '../event-store/log-range.js';
import type { Projection } from './projection.js';

/**
 * Per-client audit trail: every credential event, issued token and rejected authentication, one
 * row per event, with who and from where (the event's metadata). Event payloads were validated
 * against their schemas (src/domain/events.ts) when appended, so they are read as stored.
 */
export const auditProjection: Projection = {
  name: 'audit',
  async applyRange(trx, range) {
    await sql`
      INSERT INTO audit_log (space_id, global_position, transaction_id, client_id, event_type,
        token_kind, audience, customer_id, segment_id, jti, parent_jti, expires_at, recorded_at,
        actor, request_id, client_ip, user_agent, details)
      SELECT e.space_id, e.global_position, e.transaction_id, e.data->>'client_id', e.event_type,
        CASE e.event_type WHEN 'private-token-issued' THEN 'private'
                          WHEN 'public-token-issued' THEN 'public' END,
        e.data->>'audience', e.data->>'customer_id', e.data->>'segment_id', e.data->>'jti',
        e.data->>'parent_jti', (e.data->>'expires_at')::timestamptz, e.recorded_at,
        e.metadata->>'actor', e.metadata->>'request_id', e.metadata->>'client_ip',
        e.metadata->>'user_agent',
        CASE e.event_type
          WHEN 'credential-created' THEN jsonb_build_object('name', e.data->'name',
            'description', e.data->'description', 'created_by', e.data->'created_by',
            'login_issuer', e.data->'login_issuer')
          WHEN 'client-authentication-failed' THEN jsonb_build_object('reason', e.data->'reason')
          ELSE '{}'::jsonb END
      FROM events e
      WHERE ${inRange(range, 'e')}
        AND e.event_type IN ('credential-created', 'private-token-issued', 'public-token-issued',
                             'client-authentication-failed')`.execute(trx);
  },
  async reset(trx) {
    await trx.deleteFrom('audit_log').execute();
  },
};
