-- Per-space hash chains: every space's events numbered 1, 2, 3... without gaps, each link
-- covering the event (secret hashes replaced by their digest) and the link before it in the same
-- space. One space's export then proves that none of its events is missing, edited or reordered.
CREATE TABLE space_chain (
  space_id      text   NOT NULL,
  sequence      bigint NOT NULL CHECK (sequence > 0),
  link_number   bigint NOT NULL UNIQUE,
  global_position bigint NOT NULL,
  previous_hash bytea  NOT NULL,
  hash          bytea  NOT NULL,
  sealed_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, sequence)
);
CREATE TRIGGER space_chain_no_update BEFORE UPDATE ON space_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER space_chain_no_delete BEFORE DELETE ON space_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER space_chain_no_truncate BEFORE TRUNCATE ON space_chain
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Signed checkpoints of each space's chain head, each chained to the one before.
CREATE TABLE audit_checkpoints (
  space_id                 text        NOT NULL,
  checkpoint_number        bigint      NOT NULL CHECK (checkpoint_number > 0),
  sequence                 bigint      NOT NULL,
  head_hash                bytea       NOT NULL,
  created_at               timestamptz NOT NULL DEFAULT now(),
  jws                      text        NOT NULL,
  PRIMARY KEY (space_id, checkpoint_number)
);
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Least privilege. The service never runs as the owner of these tables: migrations run as the
-- owner; the API and the projector run as login roles granted one of these (NOLOGIN) roles.
-- On the log and the chains they may INSERT and SELECT only, so they can neither change rows nor
-- disable or drop the triggers (that takes ownership).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'token_authority_api') THEN
    CREATE ROLE token_authority_api NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'token_authority_projector') THEN
    CREATE ROLE token_authority_projector NOLOGIN;
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'service roles not created (needs CREATEROLE): %', SQLERRM;
END;
$$;

DO $$
BEGIN
  GRANT USAGE ON SCHEMA public TO token_authority_api, token_authority_projector;
  GRANT SELECT ON schema_migrations TO token_authority_api, token_authority_projector;
  -- The log and the chains: read and append, nothing else, for both.
  GRANT SELECT, INSERT ON events TO token_authority_api, token_authority_projector;
  GRANT SELECT ON event_chain, space_chain, audit_checkpoints TO token_authority_api;
  GRANT SELECT, INSERT ON event_chain, space_chain, audit_checkpoints TO token_authority_projector;
  -- The API's inline read models and keys.
  GRANT SELECT, INSERT, UPDATE ON credentials, signing_keys TO token_authority_api;
  GRANT SELECT, INSERT ON token_revocations TO token_authority_api;
  GRANT SELECT ON credentials TO token_authority_projector;
  -- The projector's views (a rebuild empties them) and its checkpoints; the API reads them.
  GRANT SELECT, INSERT, UPDATE, DELETE ON audit_log, client_rate_minute, client_rate_hour,
    credential_usage, projection_checkpoints TO token_authority_projector;
  GRANT SELECT ON audit_log, client_rate_minute, client_rate_hour, credential_usage,
    projection_checkpoints, token_revocations TO token_authority_api;
  GRANT SELECT ON dashboard_client_rates_minute, dashboard_client_rates_hour,
    dashboard_audit_trail, dashboard_projector_lag TO token_authority_api, token_authority_projector;
  GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO token_authority_api, token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
