-- Secretless clients (private_key_jwt, RFC 7523): a credential holds public keys instead of a
-- secret's hash, and the ids of the client assertions it used, so none is accepted twice (by
-- any API process) before it expires. The projector's leader drops expired ones.
ALTER TABLE credentials ALTER COLUMN secret_hash DROP NOT NULL;
ALTER TABLE credentials ADD COLUMN IF NOT EXISTS jwks jsonb;

CREATE TABLE client_assertion_jtis (
  space_id   text        NOT NULL,
  client_id  text        NOT NULL,
  -- SHA-256 of the assertion's jti: the table never holds the caller's text.
  jti_hash   text        NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (space_id, client_id, jti_hash)
);
CREATE INDEX client_assertion_jtis_expiry_idx ON client_assertion_jtis (expires_at);

DO $$
BEGIN
  GRANT SELECT, INSERT ON client_assertion_jtis TO token_authority_api, token_authority_app;
  GRANT SELECT, DELETE ON client_assertion_jtis TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
