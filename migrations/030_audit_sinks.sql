-- Audit-trail delivery (issue 43): sinks that follow the log like an outbox. A sink's definition
-- (written by the API in the transaction of its sink-created / sink-changed event, or by the
-- deliverer for the operator's AUDIT_SINKS setting) and, apart, its cursor, which only the
-- deliverer writes, advanced in one statement after the sink acknowledged a batch.
CREATE TABLE audit_sinks (
  sink_id text PRIMARY KEY,
  -- NULL: an operator sink, delivering every space's events (the whole deployment).
  space_id text,
  name text NOT NULL,
  target jsonb NOT NULL,
  -- A webhook's signing secret, sealed under the key-encryption key; never in an event.
  sealed_secret jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  paused boolean NOT NULL DEFAULT false,
  pause_reason text,
  paused_at timestamptz
);
CREATE INDEX audit_sinks_space_idx ON audit_sinks (space_id, created_at);

CREATE TABLE audit_sink_cursors (
  sink_id text PRIMARY KEY REFERENCES audit_sinks (sink_id),
  -- Commit-safe log order, as the projections' checkpoints: delivered through this event.
  transaction_id xid8 NOT NULL DEFAULT '0',
  global_position bigint NOT NULL DEFAULT 0,
  delivered bigint NOT NULL DEFAULT 0,
  -- recorded_at of the last event delivered: the lag in seconds is measured from it.
  delivered_recorded_at timestamptz,
  delivered_at timestamptz,
  failures bigint NOT NULL DEFAULT 0,
  -- Failed attempts since the last success; the deliverer pauses the sink past SINK_MAX_ATTEMPTS.
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  last_error_at timestamptz
);

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON audit_sinks TO token_authority_api;
  GRANT SELECT, INSERT, UPDATE ON audit_sink_cursors TO token_authority_api;
  GRANT SELECT, INSERT, UPDATE ON audit_sinks TO token_authority_projector;
  GRANT SELECT, INSERT, UPDATE ON audit_sink_cursors TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
