-- The dashboard's trusted-issuer and agent use (issues 54 and 55) is read from the log over its
-- window: these find the issuances an assertion bought and the delegated ones without scanning
-- the space's other events. Partial: a token bought with a secret costs them nothing.
CREATE INDEX events_assertion_use_idx ON events (space_id, recorded_at)
  WHERE event_type = 'private-token-issued' AND data ? 'assertion';
CREATE INDEX events_delegated_use_idx ON events (space_id, recorded_at)
  WHERE event_type = 'public-token-issued' AND data ? 'actors';
