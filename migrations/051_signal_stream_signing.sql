-- Issue 65: a signal stream's Security Event Tokens are signed by its space's own ring in the
-- deliverer (`npm run deliver`, the projector's role), which already holds the key-encryption key
-- for sink secrets. It reads the sealed keys of spaces' own rings, never the shared ring's: the
-- deliverer connects to addresses tenants choose, and the shared ring signs for every space.
-- Row-level security does it: every other role keeps seeing every row (a permissive policy for
-- all), the projector's role sees only space rows (a restrictive one); the table's owner and
-- superusers are not subject to it.
ALTER TABLE signing_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY signing_keys_all ON signing_keys USING (true) WITH CHECK (true);

DO $$
BEGIN
  CREATE POLICY signing_keys_projector_space_rings ON signing_keys AS RESTRICTIVE FOR SELECT
    TO token_authority_projector USING (space_id IS NOT NULL);
  GRANT SELECT ON signing_keys TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;

-- A polled stream (RFC 8936) whose receiver acknowledged SETs out of order: those past the cursor,
-- so they are not sent again (at most 1,000; one lost to a race is sent again, never skipped).
ALTER TABLE audit_sink_cursors ADD COLUMN acked_ahead text[] NOT NULL DEFAULT '{}';
