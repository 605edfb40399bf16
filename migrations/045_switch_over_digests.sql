-- Issue 63 (1): a token of the shared ring is honoured for a space that has switched to its own
-- keys only as the very token issued. What only that token has, a digest of its signature, is kept
-- here beside the log (written by the append in the same statement as its event, never in the
-- event, so no export, sink, audit read or leaf holds it), until the token expires.
CREATE TABLE stream_digests (
  space_id text NOT NULL,
  stream_id text NOT NULL,
  digest bytea NOT NULL CHECK (length(digest) = 16),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (space_id, stream_id)
);
CREATE INDEX stream_digests_expiry_idx ON stream_digests (expires_at);

-- Spaces whose switch-over an admin ended ("the shared key leaked"): none of their shared-ring
-- tokens is honoured any more. Written with its `space-switch-over-ended` event.
CREATE TABLE ended_switch_overs (
  space_id text PRIMARY KEY,
  ended_at timestamptz NOT NULL
);

-- As migration 025: the database decides what leaves, the projector holds no DELETE.
CREATE FUNCTION purge_expired_stream_digests() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM public.stream_digests WHERE expires_at < now() - interval '1 minute';
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;
REVOKE ALL ON FUNCTION purge_expired_stream_digests() FROM PUBLIC;

DO $$
BEGIN
  GRANT SELECT, INSERT ON stream_digests, ended_switch_overs TO token_authority_api;
  GRANT SELECT ON ended_switch_overs TO token_authority_projector;
  GRANT EXECUTE ON FUNCTION purge_expired_stream_digests() TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
