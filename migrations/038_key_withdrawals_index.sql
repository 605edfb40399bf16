-- The revocation list names the signing keys withdrawn (retired as compromised) within a token
-- lifetime, read from the log on every build of a space's list (issue 51, item 2): this finds
-- those few events without scanning the space's issuances. Partial: it costs nothing per token.
CREATE INDEX events_key_retired_idx ON events (space_id, recorded_at)
  WHERE event_type = 'signing-key-retired';
