-- The whole log as one RFC 9162 Merkle tree, and witnesses' cosignatures (issue 35).
--
-- The log tree's leaf i is the (i+1)-th sealed event in commit order, hashed as its space tree's
-- leaf is (so one entry proves both). Its nodes live in merkle_nodes and its signed heads in
-- merkle_checkpoints under the tree id '' (no space id is empty). To find the events of a tile
-- the sealer records, with each seal, the log tree's size once the seal is in it.
CREATE TABLE log_tree_sizes (
  seal_number bigint NOT NULL PRIMARY KEY,
  tree_size   bigint NOT NULL UNIQUE CHECK (tree_size > 0)
);

INSERT INTO log_tree_sizes (seal_number, tree_size)
  SELECT seal_number, sum(event_count) OVER (ORDER BY seal_number)
  FROM event_seals;

-- A witness's cosignature on a signed tree head (C2SP tlog-cosignature): the note signature line
-- it answered, kept beside the head so the head is served cosigned. One per witness and head.
CREATE TABLE merkle_cosignatures (
  space_id    text        NOT NULL,
  tree_size   bigint      NOT NULL,
  witness     text        NOT NULL,
  line        text        NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, tree_size, witness),
  FOREIGN KEY (space_id, tree_size) REFERENCES merkle_checkpoints (space_id, tree_size)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['log_tree_sizes', 'merkle_cosignatures'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_no_update BEFORE UPDATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_delete BEFORE DELETE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
    EXECUTE format('CREATE TRIGGER %1$s_no_truncate BEFORE TRUNCATE ON %1$I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', t);
  END LOOP;
END;
$$;

DO $$
BEGIN
  GRANT SELECT ON log_tree_sizes, merkle_cosignatures TO token_authority_api, token_authority_app;
  GRANT SELECT, INSERT ON log_tree_sizes, merkle_cosignatures TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
