-- The event log: the single source of truth. Append-only, enforced below.
CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY,
  transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
  space_id        text        NOT NULL,
  stream_id       text        NOT NULL,
  stream_position bigint      NOT NULL CHECK (stream_position > 0),
  event_id        uuid        NOT NULL,
  event_type      text        NOT NULL,
  schema_version  integer     NOT NULL DEFAULT 1,
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  recorded_at     timestamptz(3) NOT NULL DEFAULT now(),
  -- Every unique key carries space_id so the table can be distributed by space (Citus).
  CONSTRAINT events_pkey PRIMARY KEY (space_id, global_position),
  CONSTRAINT events_stream_position_key UNIQUE (space_id, stream_id, stream_position),
  CONSTRAINT events_event_id_key UNIQUE (space_id, event_id)
);

-- Commit-safe log reading orders by (transaction_id, global_position).
CREATE INDEX events_log_order_idx ON events (transaction_id, global_position);

CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Tamper evidence: one link per event, in commit-safe order, written after commit by the sealer.
CREATE TABLE event_chain (
  link_number     bigint      NOT NULL PRIMARY KEY CHECK (link_number > 0),
  space_id        text        NOT NULL,
  global_position bigint      NOT NULL,
  transaction_id  xid8        NOT NULL,
  previous_hash   bytea       NOT NULL,
  hash            bytea       NOT NULL,
  sealed_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT event_chain_event_key UNIQUE (space_id, global_position)
);

CREATE TRIGGER event_chain_no_update BEFORE UPDATE ON event_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER event_chain_no_delete BEFORE DELETE ON event_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER event_chain_no_truncate BEFORE TRUNCATE ON event_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Role split for deployments: the service's login role is made a member of token_authority_app,
-- which may read and append events but never change them. Skipped where the migrating user may
-- not create roles (the triggers above still hold).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'token_authority_app') THEN
    CREATE ROLE token_authority_app NOLOGIN;
  END IF;
  GRANT SELECT, INSERT ON events, event_chain TO token_authority_app;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'token_authority_app role not created: %', SQLERRM;
END;
$$;
