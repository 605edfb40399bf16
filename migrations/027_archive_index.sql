-- An index of the archive files (issue 40, 1): a proof over archived events used to read and
-- gunzip every archive file of the space, on the API's event loop, per request; a made-up jti cost
-- the whole archive, so it answered slower than a live one and blocked every tenant meanwhile.
-- Written by `npm run archive` in the transaction that records the range; append-only like it.

-- Each archive file is a series of gzip members (one valid .ndjson.gz), each holding the events
-- of at most one tile (256 leaves) of the space's tree: a tile's leaves are one member's bytes,
-- read by offset and checked against their own SHA-256, never the whole file.
CREATE TABLE archived_blocks (
  space_id        text    NOT NULL,
  first_sequence  bigint  NOT NULL,
  last_sequence   bigint  NOT NULL,
  partition_name  text    NOT NULL,
  file            text    NOT NULL,
  byte_offset     bigint  NOT NULL CHECK (byte_offset >= 0),
  byte_length     integer NOT NULL CHECK (byte_length > 0),
  sha256          text    NOT NULL,
  PRIMARY KEY (space_id, first_sequence),
  CHECK (last_sequence >= first_sequence)
);

-- Which of a space's archived sequences an event id, or a stream's first event (a token's jti),
-- is: the key is the first 16 bytes of SHA-256("event" or "stream", 0x00, the id), so a row costs
-- ~60 bytes, and a lookup is one probe of this space's keys whether the id exists, belongs to
-- another space or was made up. The line read back is compared with the id itself.
CREATE TABLE archived_leaf_keys (
  space_id  text   NOT NULL,
  key       bytea  NOT NULL,
  sequence  bigint NOT NULL,
  PRIMARY KEY (space_id, key)
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['archived_blocks', 'archived_leaf_keys'] LOOP
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
  GRANT SELECT ON archived_blocks, archived_leaf_keys
    TO token_authority_api, token_authority_projector, token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
