-- Validation read model, written inline in the same transaction as the credential's events.
CREATE TABLE credentials (
  client_id      text        NOT NULL PRIMARY KEY,
  space_id       text        NOT NULL,
  name           text        NOT NULL,
  description    text        NOT NULL,
  secret_hash    bytea       NOT NULL,
  status         text        NOT NULL CHECK (status IN ('active', 'revoked')),
  stream_version bigint      NOT NULL,
  created_by     text        NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX credentials_space_idx ON credentials (space_id, created_at);

-- Token signing keys, shared by every API replica so they all sign and publish the same set.
CREATE TABLE signing_keys (
  kid         text        NOT NULL PRIMARY KEY,
  alg         text        NOT NULL,
  private_jwk jsonb       NOT NULL,
  public_jwk  jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz
);

DO $$
BEGIN
  GRANT SELECT, INSERT, UPDATE ON credentials, signing_keys TO token_authority_app;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
