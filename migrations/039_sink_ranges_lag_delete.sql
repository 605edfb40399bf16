-- Issue 51, items 6 and 13. A sink's cursor row also keeps:
--  * the range of the log its batch in flight carries (written before the first send), so a batch
--    sent again after a deliverer crash is the same range with the same webhook-id;
--  * its lag as the deliverer last counted it (bounded), so reading a sink's status (an answer,
--    /metrics, the dashboard) never counts the log again.
-- A deleted sink keeps its row (its id answers the same 404, a DELETE again is a no-op); its
-- sealed secret and path are dropped, and it no longer counts against its space's limit.
ALTER TABLE audit_sink_cursors
  ADD COLUMN pending_transaction_id xid8,
  ADD COLUMN pending_global_position bigint,
  ADD COLUMN lag_events integer NOT NULL DEFAULT 0,
  ADD COLUMN lag_oldest_at timestamptz,
  ADD COLUMN lag_counted_at timestamptz;
ALTER TABLE audit_sinks ADD COLUMN deleted_at timestamptz;
