-- A per-credential override of CLIENT_RATE_LIMIT_PER_MINUTE (null: the service default).
ALTER TABLE credentials ADD COLUMN rate_limit_per_minute bigint
  CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute BETWEEN 1 AND 1000000000);
