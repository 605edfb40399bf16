-- Partition maintenance never waits on anything else (issue 49). Since migration 019,
-- ensure_event_partitions() waited on advisory key 7214903315, the key the audit deliverer
-- later took as its session lock for as long as it runs: whenever a partition was due, every caller
-- (each API process, the projector, the archive) waited on the deliverer without end, and once the
-- lookahead ran out every append failed.
--
-- Now it has a key of its own (ADVISORY_LOCK.eventPartitions in src/db/advisory-locks.ts, the one
-- registry; test/unit/advisory-locks.test.ts holds every key in SQL to it), taken with a try: when
-- another session is making the partitions this one returns -1 and goes on; the caller logs it
-- and tries again at its next round. Its DDL waits for table locks at most lock_timeout (2 s):
-- CREATE TABLE … PARTITION OF queues behind whatever reads the log, and every append would queue
-- behind it in turn; failing fast and retrying costs nothing, a partition being made ahead.
CREATE OR REPLACE FUNCTION ensure_event_partitions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
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
  IF NOT pg_try_advisory_xact_lock(7214903316) THEN
    RETURN -1;
  END IF;
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
