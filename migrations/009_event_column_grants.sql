-- The service roles insert events, but never choose what the database assigns to one: its
-- position, its transaction (the commit order followers of the log rely on) and its time. INSERT
-- is granted on the other columns only, so a compromised API cannot write an event dated in the
-- past or slipped before events already read.
DO $$
BEGIN
  REVOKE INSERT ON events FROM token_authority_api, token_authority_projector, token_authority_app;
  GRANT INSERT (space_id, stream_id, stream_position, event_id, event_type, schema_version, data,
                metadata)
    ON events TO token_authority_api, token_authority_projector, token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
