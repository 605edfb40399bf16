-- Revocations of expired tokens leave the read model (their events stay in the log): the
-- projector's leader removes them, so the table every API process reads stays bounded.
DO $$
BEGIN
  GRANT SELECT, DELETE ON token_revocations TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
