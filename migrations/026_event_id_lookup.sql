-- Proofs by event id find the event through an index (issue 40, item 2). Since migration 019 an
-- event id had none: GET /v1/audit/proof/inclusion?event_id= read the space's events one by one
-- (0.4 s at 10^6 events in a space, and 20 at once took the pool every tenant shares).
--
-- A b-tree or hash index on event_id costs 28 to 44 bytes an event, which issue 20 took out of
-- every token. Event ids are UUIDv7 (src/domain/ports.ts): they grow with time, as the log's pages
-- do, so a BRIN index answers with a few pages for a fraction of a byte an event. Its operator
-- class is minmax-multi: each range keeps up to 32 intervals and points, so an id of another shape
-- (the archive's random UUIDs, an id from before UUIDv7, ids written a moment out of order by two
-- API processes) stays one point of its range instead of widening it to the whole key space.
-- autosummarize asks autovacuum to summarise each range once filled; a range not yet summarised
-- (the newest ones) is read whole, which is the last few pages of the log.
CREATE INDEX events_event_id_brin_idx ON events
  USING brin (event_id uuid_minmax_multi_ops (values_per_range = 8)) WITH (pages_per_range = 32, autosummarize = on);

-- fill_log_indexes (migration 022) sets fillfactor on every index of a new partition; a BRIN
-- index has no such setting and would refuse it, so only b-tree and hash indexes are set.
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
