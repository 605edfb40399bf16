-- Every API process reads the revocations recorded since its last read, four times a second:
-- an index on revoked_at keeps that read proportional to what is new, not to every unexpired row.
CREATE INDEX IF NOT EXISTS token_revocations_revoked_at_idx ON token_revocations (revoked_at);
