-- Secret rotation and revocation, in the inline credential read model. At most two secrets are
-- valid: the current one and, until previous_secret_expires_at, the one it replaced.
ALTER TABLE credentials
  ADD COLUMN previous_secret_hash       bytea,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD COLUMN revoked_at                 timestamptz,
  ADD COLUMN revoked_reason             text;
CREATE INDEX credentials_space_client_idx ON credentials (space_id, client_id);

-- Revoked access tokens (RFC 7009), written inline with their token-revoked event. A row is
-- useful until the token would have expired anyway.
CREATE TABLE token_revocations (
  jti         text        NOT NULL PRIMARY KEY,
  space_id    text        NOT NULL,
  client_id   text        NOT NULL,
  token_kind  text        NOT NULL CHECK (token_kind IN ('private', 'public')),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz NOT NULL
);
CREATE INDEX token_revocations_space_idx ON token_revocations (space_id, expires_at);

-- When each client last got a token, from the projector (issuance never writes a credential row).
CREATE TABLE credential_usage (
  space_id     text        NOT NULL,
  client_id    text        NOT NULL,
  last_used_at timestamptz NOT NULL,
  PRIMARY KEY (space_id, client_id)
);

-- Key lifecycle events carry no client; their audit rows have none.
ALTER TABLE audit_log ALTER COLUMN client_id DROP NOT NULL;
-- Public tokens derived from a revoked private token, for the revocation list.
CREATE INDEX audit_log_parent_jti_idx ON audit_log (parent_jti) WHERE parent_jti IS NOT NULL;

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON token_revocations TO token_authority_app;
  GRANT SELECT, INSERT, UPDATE, DELETE ON credential_usage TO token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
