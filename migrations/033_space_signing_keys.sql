-- Issue 42: a space may have a key ring of its own. A key with a space_id signs only that space's
-- tokens and is published only in that space's JWKS; NULL is the shared ring, as before.
ALTER TABLE signing_keys ADD COLUMN space_id text;

-- A space's ring is read on its own (lazily, per space); the shared ring is what is left.
CREATE INDEX signing_keys_space ON signing_keys (space_id, activates_at) WHERE space_id IS NOT NULL;
