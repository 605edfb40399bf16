-- A secret rotation sent with an Idempotency-Key keeps its response, sealed, for a short while:
-- a client whose first attempt was answered 503 after it committed gets the same new secret
-- back instead of rotating again (which would revoke the secret still in use). Written in the
-- rotation's transaction; the primary key makes a concurrent retry wait and then read it. The
-- projector's leader drops expired rows (the rotation's event, which names the key's hash, stays).
CREATE TABLE idempotent_responses (
  space_id             text        NOT NULL,
  idempotency_key_hash text        NOT NULL,
  -- What was asked (operation, target, parameters), hashed: the same key with another request is
  -- refused rather than answered with the first one's result.
  request_hash         text        NOT NULL,
  -- The response, AES-256-GCM under the key-encryption key, bound to this row.
  sealed_response      jsonb       NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  expires_at           timestamptz NOT NULL,
  PRIMARY KEY (space_id, idempotency_key_hash)
);
CREATE INDEX idempotent_responses_expiry_idx ON idempotent_responses (expires_at);

DO $$
BEGIN
  GRANT SELECT, INSERT ON idempotent_responses TO token_authority_api, token_authority_app;
  GRANT SELECT, DELETE ON idempotent_responses TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
