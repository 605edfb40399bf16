-- Every per-space table carries space_id in each of its keys, so the log can one day be
-- distributed by space (Citus: a unique key must include the distribution column;
-- docs/scaling.md). A space-chain link's global number is unique through event_chain's primary
-- key already; here it is unique per space, and indexed alone for the sealer's "where was I".
ALTER TABLE space_chain DROP CONSTRAINT IF EXISTS space_chain_link_number_key;
ALTER TABLE space_chain ADD CONSTRAINT space_chain_space_link_key UNIQUE (space_id, link_number);
CREATE INDEX IF NOT EXISTS space_chain_link_number_idx ON space_chain (link_number);
