-- The hash chains seal ranges, not events (issue 20). A seal is one row per sealer round: the
-- chained SHA-256 over every event of a settled stretch of the log, in commit-safe order, with
-- how many events it covers and where it ends. Verification recomputes the fold from the events
-- and compares; an edited, missing or extra event still breaks it, at the cost of naming the
-- range rather than the event. The per-event rows were 438 bytes per token with their indexes.
--
-- The hash is the same function as before (SHA-256 of the previous hash and the event's canonical
-- bytes, folded over the range), so the existing links convert one to one into one-event seals and
-- every signed checkpoint keeps verifying.
CREATE TABLE event_seals (
  seal_number         bigint  NOT NULL PRIMARY KEY CHECK (seal_number > 0),
  event_count         integer NOT NULL CHECK (event_count > 0),
  -- The last event of the range (the range starts after the previous seal's last event).
  last_transaction_id xid8    NOT NULL,
  last_position       bigint  NOT NULL,
  previous_hash       bytea   NOT NULL,
  hash                bytea   NOT NULL,
  sealed_at           timestamptz NOT NULL DEFAULT now()
);

-- Each space's share of a global seal: its events of that range, numbered on from the space's
-- previous seal (sequence 1, 2, 3... without gaps), chained within the space only.
CREATE TABLE space_seals (
  space_id         text    NOT NULL,
  last_sequence    bigint  NOT NULL CHECK (last_sequence > 0),
  first_sequence   bigint  NOT NULL CHECK (first_sequence > 0 AND first_sequence <= last_sequence),
  seal_number      bigint  NOT NULL,
  -- Bounds that let a space's events be found by the events' primary key.
  min_position     bigint  NOT NULL,
  max_position     bigint  NOT NULL,
  first_recorded_at timestamptz(3) NOT NULL,
  last_recorded_at  timestamptz(3) NOT NULL,
  previous_hash    bytea   NOT NULL,
  hash             bytea   NOT NULL,
  sealed_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, last_sequence),
  CONSTRAINT space_seals_space_seal_key UNIQUE (space_id, seal_number)
);
CREATE INDEX space_seals_seal_number_idx ON space_seals (seal_number);

INSERT INTO event_seals (seal_number, event_count, last_transaction_id, last_position,
                         previous_hash, hash, sealed_at)
  SELECT link_number, 1, transaction_id, global_position, previous_hash, hash, sealed_at
  FROM event_chain;

INSERT INTO space_seals (space_id, last_sequence, first_sequence, seal_number, min_position,
                         max_position, first_recorded_at, last_recorded_at, previous_hash, hash,
                         sealed_at)
  SELECT s.space_id, s.sequence, s.sequence, s.link_number, s.global_position, s.global_position,
         e.recorded_at, e.recorded_at, s.previous_hash, s.hash, s.sealed_at
  FROM space_chain s
  JOIN events e ON e.space_id = s.space_id AND e.global_position = s.global_position;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['event_seals', 'space_seals'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_no_update BEFORE UPDATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_delete BEFORE DELETE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_truncate BEFORE TRUNCATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
  END LOOP;
END;
$$;

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
    LEFT JOIN (SELECT last_transaction_id, last_position, sealed_at FROM event_seals
               ORDER BY seal_number DESC LIMIT 1) tip ON true
  ) t;

DROP TABLE space_chain;
DROP TABLE event_chain;

DO $$
BEGIN
  GRANT SELECT ON event_seals, space_seals TO token_authority_api, token_authority_app;
  GRANT SELECT, INSERT ON event_seals, space_seals TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
