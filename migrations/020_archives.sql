-- Verified archives (issue 20): whole partitions of the log leave the database for compressed
-- NDJSON files (npm run archive), after the files were written and verified; each archive is an
-- events-archived event, and this table its read model for the audit API ("that range is in
-- these files"). It is never archived itself: one row per space and archived partition.
CREATE TABLE archived_ranges (
  space_id        text        NOT NULL,
  partition_name  text        NOT NULL,
  starts_at       timestamptz NOT NULL,
  ends_at         timestamptz NOT NULL,
  first_sequence  bigint,
  last_sequence   bigint,
  event_count     integer     NOT NULL,
  file            text        NOT NULL,
  sha256          text        NOT NULL,
  archived_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, partition_name)
);
CREATE TRIGGER archived_ranges_no_update BEFORE UPDATE ON archived_ranges
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER archived_ranges_no_delete BEFORE DELETE ON archived_ranges
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER archived_ranges_no_truncate BEFORE TRUNCATE ON archived_ranges
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Each global seal lies within one partition (the sealer cuts its ranges at partition
-- boundaries); which one is kept, so verify-chain can step over the seals of archived partitions.
ALTER TABLE event_seals ADD COLUMN partition_start timestamptz NOT NULL DEFAULT '-infinity';

DO $$
BEGIN
  GRANT SELECT ON archived_ranges TO token_authority_api, token_authority_projector, token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
