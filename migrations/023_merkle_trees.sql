-- Each space's events as an RFC 9162 Merkle tree (issue 35): leaf i is the space's event of
-- sequence i + 1 (its space-chain sequence), hashed as SHA-256(0x00 || canonical redacted event),
-- the bytes its space chain already covers. Stored compactly: only the perfect subtrees of 256
-- leaves and more (one row per 128 events, about 0.6 byte a token); the lower levels are
-- recomputed from the events of one 256-leaf tile when a proof needs them. Append-only, written by
-- the sealer in the transaction that seals the events.
CREATE TABLE merkle_nodes (
  space_id text     NOT NULL,
  level    smallint NOT NULL CHECK (level >= 8 AND level < 64),
  index    bigint   NOT NULL CHECK (index >= 0),
  hash     bytea    NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (space_id, level, index)
);

-- Signed tree heads: each a C2SP checkpoint signed as a note by the audit key, written by the
-- projector when a space's tree grew. Kept, never rewritten: every one stays checkable.
CREATE TABLE merkle_checkpoints (
  space_id   text        NOT NULL,
  tree_size  bigint      NOT NULL CHECK (tree_size > 0),
  note       text        NOT NULL,
  signed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space_id, tree_size)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['merkle_nodes', 'merkle_checkpoints'] LOOP
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
  GRANT SELECT ON merkle_nodes, merkle_checkpoints TO token_authority_api, token_authority_app;
  GRANT SELECT, INSERT ON merkle_nodes, merkle_checkpoints TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;

-- Which global seal holds an event (a proof's first question): the first to end at or after it.
CREATE INDEX event_seals_end_idx ON event_seals (last_transaction_id, last_position);
