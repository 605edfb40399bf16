-- Issue 53: the trace of the request that appended an event, beside the log and never in it.
-- An event's leaf covers its row of `events` (metadata included), so a trace id there would make
-- the evidence depend on whether tracing was on; here it is outside what any leaf, tree or
-- export check covers. Written by the append in the same statement as its event, and only when
-- the request's trace was sampled (exported): with tracing off (the default) this table stays
-- empty and an event costs what it did before. Keyed by the event's log position.
CREATE TABLE event_traces (
  global_position bigint NOT NULL,
  -- The event's space, in the key as in every per-space table (distribution by space:
  -- docs/scaling.md); last, so a read by position alone still walks the key.
  space_id text NOT NULL,
  trace_id bytea NOT NULL CHECK (length(trace_id) = 16),
  span_id bytea NOT NULL CHECK (length(span_id) = 8),
  PRIMARY KEY (global_position, space_id)
);

DO $$
BEGIN
  GRANT SELECT, INSERT ON event_traces TO token_authority_api, token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
