-- Key rotation: a new key is published (JWKS) before it signs anything, and an old one stays
-- published until every token it signed has expired.
ALTER TABLE signing_keys ADD COLUMN activates_at timestamptz NOT NULL DEFAULT now();
