-- The audit trail is served from the log itself (issue 20): its table (audit_index, one row per
-- event, 376 bytes a token with its five indexes) goes, and the log gets the two indexes the
-- audit queries need that its own do not give: by client, and by customer for public tokens (and
-- the parent token, for the revocation list's cascade). Times are the partition key, so a time
-- range prunes partitions and then walks the events' (space_id, global_position) index. The view
-- keeps its name and columns for the dashboards that query it.
DROP VIEW IF EXISTS dashboard_audit_trail;
DROP VIEW IF EXISTS audit_log;
DROP TABLE audit_index;
DELETE FROM projection_checkpoints WHERE projection = 'audit';

CREATE INDEX events_client_idx ON events (space_id, (data->>'client_id'), global_position);
CREATE INDEX events_customer_idx ON events (space_id, (data->>'customer_id'), global_position)
  WHERE event_type = 'public-token-issued';
CREATE INDEX events_parent_jti_idx ON events ((data->>'parent_jti'))
  WHERE event_type = 'public-token-issued';

-- A token's id is its stream's name and its actor is its client (src/domain/events.ts); the
-- view gives both for every event, whether the event repeats them or not.
CREATE VIEW audit_log AS
  SELECT e.space_id, e.global_position, e.transaction_id, e.data->>'client_id' AS client_id,
         e.event_type,
         CASE e.event_type WHEN 'private-token-issued' THEN 'private'
                           WHEN 'public-token-issued' THEN 'public' END AS token_kind,
         e.data->>'audience' AS audience, e.data->>'customer_id' AS customer_id,
         e.data->>'segment_id' AS segment_id,
         COALESCE(e.data->>'jti', CASE WHEN e.event_type IN ('private-token-issued', 'public-token-issued')
                                       THEN substr(e.stream_id, 7) END) AS jti,
         e.data->>'parent_jti' AS parent_jti, (e.data->>'expires_at')::timestamptz AS expires_at,
         e.recorded_at,
         COALESCE(e.metadata->>'actor', 'client:' || (e.data->>'client_id')) AS actor,
         e.metadata->>'request_id' AS request_id, e.metadata->>'client_ip' AS client_ip,
         e.metadata->>'user_agent' AS user_agent, e.data AS event_data
  FROM events e;

CREATE VIEW dashboard_audit_trail AS
  SELECT a.space_id, a.client_id, c.name AS client_name, a.event_type, a.token_kind, a.audience,
         a.customer_id, a.segment_id, a.jti, a.parent_jti, a.expires_at, a.recorded_at, a.actor,
         a.client_ip, a.user_agent, a.global_position
  FROM audit_log a LEFT JOIN credentials c ON c.client_id = a.client_id;

DO $$
BEGIN
  GRANT SELECT ON audit_log, dashboard_audit_trail
    TO token_authority_api, token_authority_projector, token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
