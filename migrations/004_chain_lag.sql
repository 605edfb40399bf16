-- The hash chain's sealing window, reported beside the projections: how many committed events
-- and how many seconds the sealer is behind the log.
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
    -- The chain's tip is its highest link (links are in commit-safe order).
    SELECT COALESCE(tip.transaction_id, '0'::xid8) AS transaction_id,
           COALESCE(tip.global_position, 0) AS global_position, tip.sealed_at
    FROM (SELECT 1) one
    LEFT JOIN (SELECT transaction_id, global_position, sealed_at FROM event_chain
               ORDER BY link_number DESC LIMIT 1) tip ON true
  ) t;
