-- Scoped access (issue 41): what a credential's tokens may carry. NULL: created before scopes
-- existed, which allows the catalog's defaults. scopes_narrowed_at: when a change last took a
-- scope away, so the revocation list tells offline verifiers (for a token lifetime) to refuse
-- tokens that still carry it.
ALTER TABLE credentials ADD COLUMN scopes text[];
ALTER TABLE credentials ADD COLUMN scopes_narrowed_at timestamptz;
