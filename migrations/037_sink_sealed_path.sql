-- A webhook sink's path and query may hold a receiver's credential (`?token=`, issue 51, item 7):
-- they are sealed under the key-encryption key as the sink's signing secret is, and the sink's
-- target (in its row and its events) keeps the scheme, host and port with a digest of them.
-- Rows of sinks made before keep their whole URL in `target` and no sealed path.
ALTER TABLE audit_sinks ADD COLUMN sealed_path jsonb;
