-- Scoped access (issue 41): issuances per client per scope per hour, built by the projector from
-- the issuance events' `scope` (a rebuild reproduces it: buckets from recorded_at).
CREATE TABLE client_scope_rate_hour (
  space_id text NOT NULL,
  client_id text NOT NULL,
  scope text NOT NULL,
  bucket_start timestamptz NOT NULL,
  private_tokens bigint NOT NULL DEFAULT 0,
  public_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (space_id, client_id, scope, bucket_start)
);

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE, DELETE ON client_scope_rate_hour TO token_authority_projector;
  GRANT SELECT ON client_scope_rate_hour TO token_authority_api;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
