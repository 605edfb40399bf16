-- Issue 65: the Token Status List (draft-ietf-oauth-status-list). Each issued token names a list
-- and an index in it (`status` in its issuance event); the projector writes one row per token so a
-- list is built from its entries, each judged by the rule introspection applies. Insert-only for
-- the projector (a replay inserts nothing new); rows leave through the purge below, a day after
-- their token expired, so a list's size is bounded by the tokens alive in it.
CREATE TABLE status_list_entries (
  space_id text NOT NULL,
  list_id text NOT NULL,
  idx integer NOT NULL,
  -- The issuance event as the log stores it (its stream names the token).
  stream_id text NOT NULL,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (space_id, list_id, idx)
);
-- Rows arrive about in expiry order: a BRIN index finds the purge's rows for almost no WAL per
-- token (a B-tree here was one more index write per issued token).
CREATE INDEX status_list_entries_expiry ON status_list_entries USING brin (expires_at);

-- No event before this migration names a list: the projection (src/projections/all.ts names it
-- 'status-list-entries') starts at the log's tip, not at its first event, so an upgrade serves
-- lists at once instead of after reading the whole history.
INSERT INTO projection_checkpoints (projection, transaction_id, global_position)
SELECT 'status-list-entries', COALESCE(tip.transaction_id, '0'), COALESCE(tip.global_position, 0)
FROM (SELECT 1) one
LEFT JOIN (SELECT transaction_id, global_position FROM events
           ORDER BY transaction_id DESC, global_position DESC LIMIT 1) tip ON true
ON CONFLICT (projection) DO NOTHING;

-- As migration 025's: the database decides what goes (expired tokens' rows only, after a day).
CREATE FUNCTION purge_expired_status_list_entries() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM public.status_list_entries WHERE expires_at < now() - interval '1 day';
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;
REVOKE ALL ON FUNCTION purge_expired_status_list_entries() FROM PUBLIC;

DO $$
BEGIN
  GRANT SELECT ON status_list_entries TO token_authority_api;
  GRANT SELECT, INSERT ON status_list_entries TO token_authority_projector;
  GRANT EXECUTE ON FUNCTION purge_expired_status_list_entries() TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
