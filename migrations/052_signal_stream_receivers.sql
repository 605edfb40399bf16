-- Issue 65: a Shared Signals stream its receiver made through SSF 1.0 §8 and alone manages (the
-- client, in the sink's space), and when it last asked for a verification (one a minute).
ALTER TABLE audit_sinks ADD COLUMN receiver_client_id text;
ALTER TABLE audit_sinks ADD COLUMN verification_requested_at timestamptz;
-- Deleted streams too: a receiver's verification limit counts every stream it made.
CREATE INDEX audit_sinks_receiver ON audit_sinks (space_id, receiver_client_id)
  WHERE receiver_client_id IS NOT NULL;
