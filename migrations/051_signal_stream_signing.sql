-- Issue 65: a signal stream's Security Event Tokens are signed by its space's own ring in the
-- deliverer (`npm run deliver`, the projector's role), which already holds the key-encryption key
-- for sink secrets: it reads the sealed keys as the API does, and never writes them.
DO $$
BEGIN
  GRANT SELECT ON signing_keys TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
