-- Issue 56: the lag view counted every event behind a checkpoint, and took the oldest of them,
-- by a row comparison the planner estimates from its leading column: while the projector caught
-- up after a bulk transaction, each /metrics scrape and dashboard read scanned the log. Now each
-- row reads at most the next 100,001 events in log order (by index) and counts up to that.
CREATE OR REPLACE VIEW dashboard_projector_lag AS
  SELECT p.projection, behind.events_behind,
         COALESCE(EXTRACT(EPOCH FROM now() - behind.oldest), 0) AS seconds_behind,
         p.updated_at
  FROM projection_checkpoints p
  CROSS JOIN LATERAL (
    SELECT count(*) AS events_behind, min(next.recorded_at) AS oldest
    FROM (SELECT e.recorded_at FROM events e
           WHERE (e.transaction_id, e.global_position) > (p.transaction_id, p.global_position)
           ORDER BY e.transaction_id, e.global_position
           LIMIT 100001) next
  ) behind
  UNION ALL
  SELECT 'chain', behind.events_behind,
         COALESCE(EXTRACT(EPOCH FROM now() - behind.oldest), 0),
         t.sealed_at
  FROM (
    SELECT COALESCE(tip.last_transaction_id, '0'::xid8) AS transaction_id,
           COALESCE(tip.last_position, 0) AS global_position, tip.sealed_at
    FROM (SELECT 1) one
    LEFT JOIN (SELECT last_transaction_id, last_position, sealed_at FROM log_seals
               ORDER BY seal_number DESC LIMIT 1) tip ON true
  ) t
  CROSS JOIN LATERAL (
    SELECT count(*) AS events_behind, min(next.recorded_at) AS oldest
    FROM (SELECT e.recorded_at FROM events e
           WHERE (e.transaction_id, e.global_position) > (t.transaction_id, t.global_position)
           ORDER BY e.transaction_id, e.global_position
           LIMIT 100001) next
  ) behind;
