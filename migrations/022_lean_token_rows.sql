-- Lean token rows (issue 20), the database's half; the other half is src/domain/stored-form.ts.
--
-- 1. A token issuance is stored without what its envelope already says: its jti (the stream is
--    token-<jti>), its actor (its client), its request id (the event's own id) and a null user
--    agent; and its issue and expiry times as seconds since the epoch. The audit view derived the
--    jti and actor since migration 021; here it derives the request id and reads either form of
--    the expiry, so every column reads as before whichever way an event was stored.
-- 2. The log's indexes fill their pages (fillfactor 100; measured over 100,000 tokens, the hash
--    index on streams went from 48 to 30 bytes per event) and the index by client drops the space
--    it repeated. A partitioned index takes no storage parameters, so each partition's indexes are
--    set: every partition ensure_event_partitions makes from now on, and every one there is now.
--    A hash index fixes its fill when built, so an empty partition's indexes are also rebuilt; one
--    already holding events keeps its hash index as it is (rebuilding would stop appends for as
--    long) until it is archived.

CREATE OR REPLACE VIEW audit_log AS
  SELECT e.space_id, e.global_position, e.transaction_id, e.data->>'client_id' AS client_id,
         e.event_type,
         CASE e.event_type WHEN 'private-token-issued' THEN 'private'
                           WHEN 'public-token-issued' THEN 'public' END AS token_kind,
         e.data->>'audience' AS audience, e.data->>'customer_id' AS customer_id,
         e.data->>'segment_id' AS segment_id,
         COALESCE(e.data->>'jti', CASE WHEN e.event_type IN ('private-token-issued', 'public-token-issued')
                                       THEN substr(e.stream_id, 7) END) AS jti,
         e.data->>'parent_jti' AS parent_jti,
         CASE jsonb_typeof(e.data->'expires_at')
           WHEN 'number' THEN to_timestamp((e.data->>'expires_at')::double precision)
           ELSE (e.data->>'expires_at')::timestamptz END AS expires_at,
         e.recorded_at,
         COALESCE(e.metadata->>'actor', 'client:' || (e.data->>'client_id')) AS actor,
         COALESCE(e.metadata->>'request_id',
                  CASE WHEN e.metadata ? 'client_ip' THEN e.event_id::text END) AS request_id,
         e.metadata->>'client_ip' AS client_ip,
         e.metadata->>'user_agent' AS user_agent, e.data AS event_data
  FROM events e;

-- The index by client no longer leads with the space: a client id names one client of one space
-- (credentials' primary key), so the space only repeated itself in every entry. Queries by client
-- still name their space; it filters what the index found.
DROP INDEX events_client_idx;
CREATE INDEX events_client_idx ON events ((data->>'client_id'), global_position);

-- Fills one partition's index pages: every log index is appended to in ascending order and never
-- updated, so the free space a fillfactor leaves for updates is never used. B-trees read the
-- setting at each split; a hash index fixes it when built, so it is rebuilt, which only an empty
-- partition allows for free. Not SECURITY DEFINER and granted to no one: it runs as the owner inside
-- ensure_event_partitions, and a REINDEX is a lock no service process may take.
CREATE FUNCTION fill_log_indexes(part text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  part_index text;
  empty boolean;
BEGIN
  FOR part_index IN
    SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = part::regclass
  LOOP
    EXECUTE format('ALTER INDEX %I SET (fillfactor = 100)', part_index);
  END LOOP;
  EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %I)', part) INTO empty;
  IF empty THEN
    EXECUTE format('REINDEX TABLE %I', part);
  END IF;
END;
$$;
REVOKE ALL ON FUNCTION fill_log_indexes(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION ensure_event_partitions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  step interval;
  lookahead integer;
  lower_bound timestamptz;
  upper_bound timestamptz;
  part text;
  made integer := 0;
BEGIN
  SELECT partition_interval, ahead INTO step, lookahead FROM event_partitioning;
  -- Cheap when nothing is due: no lock taken.
  IF (SELECT max(ends_at) FROM event_partitions) >= now() + step * lookahead THEN
    RETURN 0;
  END IF;
  PERFORM pg_advisory_xact_lock(7214903315);
  SELECT max(ends_at) INTO lower_bound FROM event_partitions;
  -- After a long stop, start at the current interval: nothing can be recorded in the past.
  IF lower_bound IS NULL OR lower_bound < event_partition_floor(now(), step) THEN
    lower_bound := event_partition_floor(now(), step);
  END IF;
  WHILE lower_bound < now() + step * lookahead LOOP
    upper_bound := lower_bound + step;
    part := 'events_' || to_char(lower_bound AT TIME ZONE 'UTC', 'YYYYMMDD"t"HH24MISS');
    EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
                   part, lower_bound, upper_bound);
    EXECUTE format('CREATE TRIGGER events_no_update BEFORE UPDATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', part);
    EXECUTE format('CREATE TRIGGER events_no_delete BEFORE DELETE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', part);
    EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()', part);
    PERFORM fill_log_indexes(part);
    INSERT INTO event_partitions (partition_name, starts_at, ends_at)
    VALUES (part, lower_bound, upper_bound);
    made := made + 1;
    lower_bound := upper_bound;
  END LOOP;
  RETURN made;
END;
$$;

SELECT fill_log_indexes(partition_name) FROM event_partitions;
