-- Async projections built by the projector process. Each has a checkpoint, advanced in the same
-- transaction as its rows with a compare-and-set.
CREATE TABLE projection_checkpoints (
  projection      text        NOT NULL PRIMARY KEY,
  transaction_id  xid8        NOT NULL DEFAULT '0',
  global_position bigint      NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO projection_checkpoints (projection) VALUES ('audit'), ('rates');

-- Audit trail: one row per credential event, issued token and rejected authentication.
CREATE TABLE audit_log (
  space_id        text        NOT NULL,
  global_position bigint      NOT NULL,
  transaction_id  xid8        NOT NULL,
  client_id       text        NOT NULL,
  event_type      text        NOT NULL,
  token_kind      text        CHECK (token_kind IN ('private', 'public')),
  audience        text,
  customer_id     text,
  segment_id      text,
  jti             text,
  parent_jti      text,
  expires_at      timestamptz,
  recorded_at     timestamptz NOT NULL,
  actor           text,
  request_id      text,
  client_ip       text,
  user_agent      text,
  details         jsonb       NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (space_id, global_position)
);
CREATE INDEX audit_log_client_idx   ON audit_log (space_id, client_id, global_position);
CREATE INDEX audit_log_time_idx     ON audit_log (space_id, recorded_at, global_position);
CREATE INDEX audit_log_customer_idx ON audit_log (space_id, customer_id, global_position) WHERE customer_id IS NOT NULL;
CREATE INDEX audit_log_segment_idx  ON audit_log (space_id, segment_id, global_position) WHERE segment_id IS NOT NULL;

-- Rate monitoring: counts per client per bucket, bucketed by the event's recorded_at.
CREATE TABLE client_rate_minute (
  space_id                 text        NOT NULL,
  client_id                text        NOT NULL,
  bucket_start             timestamptz NOT NULL,
  private_tokens           bigint      NOT NULL DEFAULT 0,
  public_tokens            bigint      NOT NULL DEFAULT 0,
  rejected_authentications bigint      NOT NULL DEFAULT 0,
  PRIMARY KEY (space_id, client_id, bucket_start)
);
CREATE INDEX client_rate_minute_time_idx ON client_rate_minute (space_id, bucket_start);

CREATE TABLE client_rate_hour (LIKE client_rate_minute INCLUDING ALL);

-- Views for dashboards that query Postgres directly (docs/operations.md).
CREATE VIEW dashboard_client_rates_minute AS
  SELECT space_id, client_id, bucket_start, private_tokens, public_tokens, rejected_authentications,
         private_tokens + public_tokens AS tokens_total
  FROM client_rate_minute;

CREATE VIEW dashboard_client_rates_hour AS
  SELECT space_id, client_id, bucket_start, private_tokens, public_tokens, rejected_authentications,
         private_tokens + public_tokens AS tokens_total
  FROM client_rate_hour;

CREATE VIEW dashboard_audit_trail AS
  SELECT a.space_id, a.client_id, c.name AS client_name, a.event_type, a.token_kind, a.audience,
         a.customer_id, a.segment_id, a.jti, a.parent_jti, a.expires_at, a.recorded_at, a.actor,
         a.client_ip, a.user_agent, a.global_position
  FROM audit_log a LEFT JOIN credentials c ON c.client_id = a.client_id;

CREATE VIEW dashboard_projector_lag AS
  SELECT p.projection,
         (SELECT count(*) FROM events e
            WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position)) AS events_behind,
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(e.recorded_at) FROM events e
            WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position))), 0)
           AS seconds_behind,
         p.updated_at
  FROM projection_checkpoints p;

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE, DELETE ON projection_checkpoints, audit_log, client_rate_minute,
    client_rate_hour TO token_authority_app;
  GRANT SELECT ON dashboard_client_rates_minute, dashboard_client_rates_hour, dashboard_audit_trail,
    dashboard_projector_lag TO token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
