-- Issue 40 (3): the database, not the projector's good behaviour, decides what leaves the read
-- models that guard tokens. With a plain DELETE on token_revocations a compromised projector
-- login un-revoked a live token (the revocation list went 1 -> 0 and resource servers accepted
-- it again); the same DELETE on used_once_ids let a client assertion or a DPoP proof be replayed,
-- and on idempotent_responses let a rotation run twice. The projector keeps the tables bounded
-- through the functions below, which delete expired rows only, with the grace each purge always
-- had, counted on the database's clock; they take no argument, so a caller can neither widen the
-- window nor name a row. SECURITY DEFINER: they run as the owner, the projector holds no DELETE.

CREATE FUNCTION purge_expired_revocations() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  -- A minute's grace for clock skew: a revocation outlives its token's last acceptable second.
  DELETE FROM public.token_revocations WHERE expires_at < now() - interval '1 minute';
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;

CREATE FUNCTION purge_expired_used_once_ids() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM public.used_once_ids WHERE expires_at < now() - interval '1 minute';
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;

CREATE FUNCTION purge_expired_idempotent_responses() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  -- No grace: a kept response is read only while unexpired (findIdempotentResponse).
  DELETE FROM public.idempotent_responses WHERE expires_at < now();
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END;
$$;

REVOKE ALL ON FUNCTION purge_expired_revocations() FROM PUBLIC;
REVOKE ALL ON FUNCTION purge_expired_used_once_ids() FROM PUBLIC;
REVOKE ALL ON FUNCTION purge_expired_idempotent_responses() FROM PUBLIC;

DO $$
BEGIN
  -- used_once_ids is migration 014's client_assertion_jtis renamed: its grants went with it.
  REVOKE DELETE, UPDATE, TRUNCATE ON token_revocations, used_once_ids, idempotent_responses
    FROM token_authority_projector, token_authority_api;
  -- The legacy role may still insert a revocation, but not move its expiry into the purge's
  -- window (an UPDATE of expires_at followed by the purge was an un-revocation too).
  REVOKE DELETE, UPDATE, TRUNCATE ON token_revocations, used_once_ids, idempotent_responses
    FROM token_authority_app;
  GRANT EXECUTE ON FUNCTION purge_expired_revocations(), purge_expired_used_once_ids(),
    purge_expired_idempotent_responses() TO token_authority_projector;
EXCEPTION WHEN undefined_object OR insufficient_privilege THEN
  RAISE NOTICE 'grants skipped: %', SQLERRM;
END;
$$;
