-- Issue 55 item 3: the domains whose client ID metadata documents a space takes as clients
-- (draft-ietf-oauth-client-id-metadata-document), the read model of the
-- metadata-client-domain-* events, written in their transaction.
CREATE TABLE metadata_client_domains (
  space_id text NOT NULL,
  domain text NOT NULL,
  -- The scopes the admin allows such clients (null: the catalog's defaults).
  scopes jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  -- space_id in the key, as in every per-space table (distribution by space: docs/scaling.md).
  PRIMARY KEY (space_id, domain)
);

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON metadata_client_domains TO token_authority_api;
  GRANT SELECT ON metadata_client_domains TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
