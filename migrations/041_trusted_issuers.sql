-- Issue 54: the issuers a space trusts for the jwt-bearer grant (RFC 7523 §2.1), the read model
-- of the trusted-issuer-* events, written in their transaction. One live issuer per (space, iss):
-- an assertion names its issuer by `iss` alone.
CREATE TABLE trusted_issuers (
  issuer_id text NOT NULL,
  space_id text NOT NULL,
  iss text NOT NULL,
  definition jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  -- space_id in the key, as in every per-space table (distribution by space: docs/scaling.md).
  PRIMARY KEY (issuer_id, space_id)
);

CREATE UNIQUE INDEX trusted_issuers_live_idx ON trusted_issuers (space_id, iss)
  WHERE removed_at IS NULL;

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON trusted_issuers TO token_authority_api;
  GRANT SELECT ON trusted_issuers TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
