/**
 * The log's tables, functions and locks: what the store needs in Postgres, owned here. A user
 * applies them with `migrateEventLog`, in the schema \`public\` (the functions name it in their
 * search_path). token-authority's own migrations (up to 045 for these objects) built the same
 * objects before this package held them: where such a log stands, the first migration is recorded
 * as applied without running (it would take locks on a live log to change nothing), and
 * test/integration/event-log/log-schema.test.ts holds that it makes what that history made.
 */
/** The advisory-lock keys the log takes; a user's other keys must differ from these. */
export const EVENT_LOG_LOCKS = {
  /** Transaction lock, tried never waited: one session makes the partitions, others skip the round. */
  partitions: 7_214_903_316,
  /** Transaction lock: processes starting together apply each of the log's migrations once. */
  migrations: 7_214_903_317,
} as const;

/** One migration (the log's, or a user's in a MigrationSet): applied once, in order, recorded by name. */
export interface Migration {
  readonly name: string;
  readonly sql: string;
  /**
   * Relations whose presence, all of them, means this migration's work was done before the
   * package held the log: it is then recorded without running.
   */
  readonly adoptsWhereStand?: readonly string[];
}

const TABLES = `
-- Append-only: a statement trigger on the log and on every partition (a statement naming a
-- partition does not fire its parent's statement triggers).
CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- The interval and how many partitions stay ready ahead (configurePartitioning writes them).
CREATE TABLE IF NOT EXISTS event_partitioning (
  id                 boolean  PRIMARY KEY DEFAULT true CHECK (id),
  partition_interval interval NOT NULL DEFAULT '1 month' CHECK (partition_interval >= '1 minute'),
  ahead              integer  NOT NULL DEFAULT 3 CHECK (ahead BETWEEN 1 AND 1000)
);
INSERT INTO event_partitioning DEFAULT VALUES ON CONFLICT DO NOTHING;

-- Every live partition of the log and the time it covers.
CREATE TABLE IF NOT EXISTS event_partitions (
  partition_name text        PRIMARY KEY,
  starts_at      timestamptz NOT NULL,
  ends_at        timestamptz NOT NULL CHECK (ends_at > starts_at),
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- Where a partition boundary falls at or before \`at\`: month multiples on calendar months (UTC),
-- other intervals on multiples of themselves since 2000-01-01 UTC.
CREATE OR REPLACE FUNCTION event_partition_floor(at timestamptz, step interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN extract(year FROM step) * 12 + extract(month FROM step) > 0
      THEN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    ELSE date_bin(step, at, timestamptz '2000-01-01 00:00:00+00')
  END
$$;

-- The log, partitioned by time. A stream's versions are kept by a lock on the stream and a check
-- (no unique key can span partitions); a stream is found by the hash index on its id.
CREATE TABLE IF NOT EXISTS events (
  global_position bigint GENERATED ALWAYS AS IDENTITY,
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
) PARTITION BY RANGE (recorded_at);
CREATE INDEX IF NOT EXISTS events_position_idx ON events (space_id, global_position);
CREATE INDEX IF NOT EXISTS events_log_order_idx ON events (transaction_id, global_position);
CREATE INDEX IF NOT EXISTS events_stream_idx ON events USING hash (stream_id);
CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE OR REPLACE TRIGGER events_no_delete BEFORE DELETE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Fills one partition's index pages: the log's indexes are appended to in ascending order and
-- never updated. A hash index fixes its fill when built, so an empty partition is reindexed. Runs
-- as the owner inside ensure_event_partitions; granted to no one.
CREATE OR REPLACE FUNCTION fill_log_indexes(part text) RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  part_index text;
  empty boolean;
BEGIN
  FOR part_index IN
    SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    JOIN pg_am a ON a.oid = c.relam
    WHERE x.indrelid = part::regclass AND a.amname IN ('btree', 'hash')
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

-- Creates the partitions missing from now up to \`ahead\` intervals ahead; returns how many, or -1
-- when another session is making them (a tried lock: maintenance never waits). SECURITY DEFINER,
-- without arguments: a process that may append keeps the log writable, and can create only what
-- the owner's settings say. Its DDL waits for table locks at most 2 s.
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
  IF NOT pg_try_advisory_xact_lock(${EVENT_LOG_LOCKS.partitions}) THEN
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
REVOKE ALL ON FUNCTION ensure_event_partitions() FROM PUBLIC;

-- The trace of the request that appended an event, beside the log and never in it (an event's
-- leaf covers its row): written only when the request's trace was sampled.
CREATE TABLE IF NOT EXISTS event_traces (
  global_position bigint NOT NULL,
  space_id text NOT NULL,
  trace_id bytea NOT NULL CHECK (length(trace_id) = 16),
  span_id bytea NOT NULL CHECK (length(span_id) = 8),
  PRIMARY KEY (global_position, space_id)
);

-- A digest kept beside a stream's first event until it expires (an append's \`digest\`), never in
-- the event.
CREATE TABLE IF NOT EXISTS stream_digests (
  space_id text NOT NULL,
  stream_id text NOT NULL,
  digest bytea NOT NULL CHECK (length(digest) = 16),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (space_id, stream_id)
);
CREATE INDEX IF NOT EXISTS stream_digests_expiry_idx ON stream_digests (expires_at);

SELECT ensure_event_partitions();
`;

/** The log's migrations, in the order they apply. A change to the log's tables is a new one here. */
export const EVENT_LOG_MIGRATIONS: readonly Migration[] = [
  {
    name: '001_event_log',
    sql: TABLES,
    adoptsWhereStand: [
      'events',
      'event_partitioning',
      'event_partitions',
      'event_traces',
      'stream_digests',
    ],
  },
];
