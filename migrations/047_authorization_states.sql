-- Issue 64: the authorization endpoint's state, the read model of the authorization-* events,
-- written in their append's transaction and read (never cached) to decide the next one: a space's
-- authorization app (key `app`) and each authorization request (key `request-<id>`). `version` is
-- the stream's, so the next append expects it (two replicas cannot both redeem one code).
CREATE TABLE authorization_states (
  space_id text NOT NULL,
  key text NOT NULL,
  state jsonb NOT NULL,
  version integer NOT NULL,
  -- A request's end (null: the app's, kept); purged after, as nothing reads it any more.
  expires_at timestamptz,
  -- space_id in the key, as in every per-space table (distribution by space: docs/scaling.md).
  PRIMARY KEY (space_id, key)
);
-- A code names its request, not its space: read by the key alone (`app-<space>`, or
-- `request-<128 random bits>`, unique across spaces), a fan-out on a distributed database.
CREATE INDEX authorization_states_key ON authorization_states (key);
CREATE INDEX authorization_states_expiry ON authorization_states (expires_at)
  WHERE expires_at IS NOT NULL;

-- As migration 025's: the database decides what goes (expired requests only, after a day).
CREATE FUNCTION purge_expired_authorization_states() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM public.authorization_states WHERE expires_at < now() - interval '1 day';
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;
REVOKE ALL ON FUNCTION purge_expired_authorization_states() FROM PUBLIC;

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON authorization_states TO token_authority_api;
  GRANT SELECT ON authorization_states TO token_authority_projector;
  GRANT EXECUTE ON FUNCTION purge_expired_authorization_states() TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
