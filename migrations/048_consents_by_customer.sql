-- Issue 64: a customer's consents, listed by the storefront (GET /v1/consents), read by space and
-- customer from the requests' state rows; only rows that hold a consent are indexed.
CREATE INDEX authorization_states_consents
  ON authorization_states (space_id, ((state -> 'consent' ->> 'customer_id')), expires_at DESC)
  WHERE state ? 'consent';
