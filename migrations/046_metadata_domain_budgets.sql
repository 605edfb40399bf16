-- A metadata domain is one client: the budget a minute every client ID metadata document under
-- it spends together, set when it is allowed (null: allowed before budgets, the default).
ALTER TABLE metadata_client_domains ADD COLUMN budget_per_minute integer;
