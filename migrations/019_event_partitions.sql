-- The log is partitioned by time (issue 20): native range partitions on recorded_at, one per
-- EVENT_PARTITION_INTERVAL (default one month), created ahead of need. A whole partition can then
-- be archived and dropped (npm run archive) without a row-by-row DELETE, and its disk comes back.
--
-- A partitioned table's unique keys must include the partition column, so the log's keys change:
--   * one stream's versions: appends to an existing stream take a transaction lock on the stream
--     and check its version (src/event-store/append-to-stream.ts), instead of a unique key;
--   * a stream is found by a hash index on its id (48 bytes per event where the b-tree key took
--     79); a new stream's INSERT skips itself when its stream exists, and a retry is told by its
--     event ids among that stream's events, so event_id needs no index of its own (it took 44);
--   * (space_id, global_position) stays the events' address, a plain b-tree (positions are unique
--     by construction: the identity).
-- The history before this migration becomes the first partition as it is, up to the end of the
-- current interval.

-- The interval and how many partitions stay ready ahead; written by `npm run migrate` from the
-- configuration (EVENT_PARTITION_INTERVAL). Only the owner may change them.
CREATE TABLE event_partitioning (
  id                 boolean  PRIMARY KEY DEFAULT true CHECK (id),
  partition_interval interval NOT NULL DEFAULT '1 month' CHECK (partition_interval >= '1 minute'),
  ahead              integer  NOT NULL DEFAULT 3 CHECK (ahead BETWEEN 1 AND 1000)
);
INSERT INTO event_partitioning DEFAULT VALUES;

-- Every live partition of the log and the time it covers. A row leaves when its partition is
-- archived and dropped (that is recorded as an events-archived event, and in archived_ranges).
CREATE TABLE event_partitions (
  partition_name text        PRIMARY KEY,
  starts_at      timestamptz NOT NULL,
  ends_at        timestamptz NOT NULL CHECK (ends_at > starts_at),
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- Where a partition boundary falls at or before `at`: month multiples on calendar months (UTC),
-- other intervals on multiples of themselves since 2000-01-01 UTC.
CREATE FUNCTION event_partition_floor(at timestamptz, step interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN extract(year FROM step) * 12 + extract(month FROM step) > 0
      THEN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    ELSE date_bin(step, at, timestamptz '2000-01-01 00:00:00+00')
  END
$$;

-- 1. The history becomes an ordinary table, soon the first partition.
ALTER TABLE events RENAME TO events_history;
ALTER TABLE events_history DROP CONSTRAINT events_stream_position_key;
ALTER TABLE events_history DROP CONSTRAINT events_event_id_key;
ALTER TABLE events_history DROP CONSTRAINT events_pkey;
DROP INDEX events_log_order_idx;

-- 2. The partitioned log, its positions continuing where the history's end.
DO $$
DECLARE
  next_position bigint;
BEGIN
  SELECT COALESCE(max(global_position), 0) + 1 INTO next_position FROM events_history;
  ALTER TABLE events_history ALTER COLUMN global_position DROP IDENTITY;
  EXECUTE format($sql$
    CREATE TABLE events (
      global_position bigint GENERATED ALWAYS AS IDENTITY (START WITH %s),
      transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
      space_id        text        NOT NULL,
      stream_id       text        NOT NULL,
      stream_position bigint      NOT NULL
        CONSTRAINT events_stream_position_check CHECK (stream_position > 0),
      event_id        uuid        NOT NULL,
      event_type      text        NOT NULL,
      schema_version  integer     NOT NULL DEFAULT 1,
      data            jsonb       NOT NULL,
      metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
      recorded_at     timestamptz(3) NOT NULL DEFAULT now()
    ) PARTITION BY RANGE (recorded_at)$sql$, next_position);
END;
$$;

DO $$
DECLARE
  history_end timestamptz;
BEGIN
  SELECT event_partition_floor(now(), partition_interval) + partition_interval INTO history_end
  FROM event_partitioning;
  EXECUTE format('ALTER TABLE events ATTACH PARTITION events_history FOR VALUES FROM (MINVALUE) TO (%L)',
                 history_end);
  INSERT INTO event_partitions (partition_name, starts_at, ends_at)
  VALUES ('events_history', '-infinity', history_end);
END;
$$;

CREATE INDEX events_position_idx ON events (space_id, global_position);
CREATE INDEX events_log_order_idx ON events (transaction_id, global_position);
CREATE INDEX events_stream_idx ON events USING hash (stream_id);

-- 3. Append-only on the log and on every partition: a statement naming a partition directly
-- does not fire the parent's statement triggers, so each partition carries its own.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Creates the partitions that are missing from now up to `ahead` intervals ahead; returns how
-- many. SECURITY DEFINER so every service process can keep the log writable (the API on start
-- and every few seconds, the projector's leader too), though none of them owns it. It takes no
-- argument: a compromised process can only create what the owner's settings say.
CREATE FUNCTION ensure_event_partitions() RETURNS integer
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
    INSERT INTO event_partitions (partition_name, starts_at, ends_at)
    VALUES (part, lower_bound, upper_bound);
    made := made + 1;
    lower_bound := upper_bound;
  END LOOP;
  RETURN made;
END;
$$;
REVOKE ALL ON FUNCTION ensure_event_partitions() FROM PUBLIC;

SELECT ensure_event_partitions();

-- 4. The views over the log follow it to the new table.
CREATE OR REPLACE VIEW audit_log AS
  SELECT a.space_id, a.global_position, a.transaction_id, a.client_id, a.event_type,
         a.token_kind, e.data->>'audience' AS audience, a.customer_id, a.segment_id,
         e.data->>'jti' AS jti, a.parent_jti, (e.data->>'expires_at')::timestamptz AS expires_at,
         a.recorded_at, e.metadata->>'actor' AS actor, e.metadata->>'request_id' AS request_id,
         e.metadata->>'client_ip' AS client_ip, e.metadata->>'user_agent' AS user_agent,
         e.data AS event_data
  FROM audit_index a
  JOIN events e ON e.space_id = a.space_id AND e.global_position = a.global_position;

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

-- 5. Privileges: the service roles read and append through the log only (the database assigns
-- position, transaction and time, as before), never a partition by name.
DO $$
BEGIN
  REVOKE ALL ON events_history FROM token_authority_api, token_authority_projector, token_authority_app;
  GRANT SELECT ON events, event_partitions, event_partitioning
    TO token_authority_api, token_authority_projector, token_authority_app;
  GRANT INSERT (space_id, stream_id, stream_position, event_id, event_type, schema_version, data,
                metadata)
    ON events TO token_authority_api, token_authority_projector, token_authority_app;
  GRANT EXECUTE ON FUNCTION ensure_event_partitions()
    TO token_authority_api, token_authority_projector, token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
