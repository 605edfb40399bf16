-- The Merkle log is the evidence (issue 45, item 1): the sealer grows the trees only. The hash
-- chains (event_seals, space_seals, with log_tree_sizes beside them) and the JWS checkpoints
-- (audit_checkpoints) are no longer written; their rows stay, append-only and readable, for the
-- exports made before (format 1) and for the record. The service roles lose INSERT on them, so
-- nothing can go on depending on a new one.
--
-- What the trees still need of a seal is where each sealed range ends, how many events it holds
-- and the log tree's size once it is in (log_seals), and each space's share of it, numbered on
-- without gaps (space_ranges): the index from a leaf to its event. No hash: the roots signed in
-- merkle_checkpoints are what an edit has to match.
CREATE TABLE log_seals (
  seal_number         bigint      NOT NULL PRIMARY KEY CHECK (seal_number > 0),
  event_count         integer     NOT NULL CHECK (event_count > 0),
  -- The last event of the range (the range starts after the previous seal's last event).
  last_transaction_id xid8        NOT NULL,
  last_position       bigint      NOT NULL,
  -- The one partition of the log the range lies in (archive.ts moves whole partitions).
  partition_start     timestamptz NOT NULL DEFAULT '-infinity',
  -- The log tree's size once the range is in it.
  tree_size           bigint      NOT NULL UNIQUE CHECK (tree_size > 0),
  sealed_at           timestamptz NOT NULL DEFAULT now()
);
-- Which seal holds an event (a proof's first question): the first to end at or after it.
CREATE INDEX log_seals_end_idx ON log_seals (last_transaction_id, last_position);

CREATE TABLE space_ranges (
  space_id          text           NOT NULL,
  last_sequence     bigint         NOT NULL CHECK (last_sequence > 0),
  first_sequence    bigint         NOT NULL CHECK (first_sequence > 0 AND first_sequence <= last_sequence),
  seal_number       bigint         NOT NULL,
  -- Bounds that let a space's events be found by the events' primary key.
  min_position      bigint         NOT NULL,
  max_position      bigint         NOT NULL,
  first_recorded_at timestamptz(3) NOT NULL,
  last_recorded_at  timestamptz(3) NOT NULL,
  sealed_at         timestamptz    NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, last_sequence),
  CONSTRAINT space_ranges_space_seal_key UNIQUE (space_id, seal_number)
);
CREATE INDEX space_ranges_seal_number_idx ON space_ranges (seal_number);

-- Every range sealed so far, as the chains recorded it (the trees were grown over the same ranges).
INSERT INTO log_seals (seal_number, event_count, last_transaction_id, last_position,
                       partition_start, tree_size, sealed_at)
  SELECT s.seal_number, s.event_count, s.last_transaction_id, s.last_position, s.partition_start,
         COALESCE(t.tree_size, sum(s.event_count) OVER (ORDER BY s.seal_number)), s.sealed_at
  FROM event_seals s LEFT JOIN log_tree_sizes t USING (seal_number);

INSERT INTO space_ranges (space_id, last_sequence, first_sequence, seal_number, min_position,
                          max_position, first_recorded_at, last_recorded_at, sealed_at)
  SELECT space_id, last_sequence, first_sequence, seal_number, min_position, max_position,
         first_recorded_at, last_recorded_at, sealed_at
  FROM space_seals;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['log_seals', 'space_ranges'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_no_update BEFORE UPDATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_delete BEFORE DELETE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_truncate BEFORE TRUNCATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
  END LOOP;
END;
$$;

-- The sealer's lag, read from where it now records its progress.
CREATE OR REPLACE VIEW dashboard_projector_lag AS
  SELECT p.projection,
         (SELECT count(*) FROM events e
            WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position)) AS events_behind,
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(e.recorded_at) FROM events e
            WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position))), 0)
           AS seconds_behind,
         p.updated_at
  FROM projection_checkpoints p
  UNION ALL
  SELECT 'chain',
         (SELECT count(*) FROM events e
            WHERE (e.transaction_id, e.global_position) > (t.transaction_id, t.global_position)),
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(e.recorded_at) FROM events e
            WHERE (e.transaction_id, e.global_position) > (t.transaction_id, t.global_position))), 0),
         t.sealed_at
  FROM (
    SELECT COALESCE(tip.last_transaction_id, '0'::xid8) AS transaction_id,
           COALESCE(tip.last_position, 0) AS global_position, tip.sealed_at
    FROM (SELECT 1) one
    LEFT JOIN (SELECT last_transaction_id, last_position, sealed_at FROM log_seals
               ORDER BY seal_number DESC LIMIT 1) tip ON true
  ) t;

DO $$
BEGIN
  GRANT SELECT ON log_seals, space_ranges TO token_authority_api, token_authority_app;
  GRANT SELECT, INSERT ON log_seals, space_ranges TO token_authority_projector;
  -- The chains and the JWS checkpoints: kept, read, never extended.
  REVOKE INSERT ON event_seals, space_seals, log_tree_sizes, audit_checkpoints
    FROM token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
