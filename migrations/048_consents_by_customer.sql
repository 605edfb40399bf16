-- Issue 64: consents as records. A customer's standing consents, listed by the storefront
-- (GET /v1/consents), read from the requests' state rows by space and customer; only redeemed
-- requests are indexed, so void ones never crowd a customer's list.
CREATE INDEX authorization_states_consents
  ON authorization_states (space_id, ((state -> 'consent' ->> 'customer_id')), expires_at DESC)
  WHERE state ->> 'status' = 'redeemed';
-- The consents a storefront's private token accepted: revoking that token voids them, and its
-- revocation is kept until the last of them ends.
CREATE INDEX authorization_states_consent_parents
  ON authorization_states (space_id, ((state -> 'consent' ->> 'parent_jti')))
  WHERE state ? 'consent';
