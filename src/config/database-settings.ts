import { flag, integer, nonEmpty, optional, postgresUrl } from '#settings/setting-types.js';

const ms = (fallback: number) => integer(100, 600_000, fallback);

/** Which Postgres, as whom, and how long anything may wait for it. */
export const databaseSettings = {
  DATABASE_URL: optional(postgresUrl, 'the embedded Postgres').describe(
    "`postgres://…` of a Postgres 14+, as the service's own login.",
  ),
  MIGRATION_DATABASE_URL: optional(postgresUrl, '`DATABASE_URL`').describe(
    "The tables' owner, used only to run migrations and archives (and, embedded, to create the service's login roles).",
  ),
  READ_DATABASE_URL: optional(nonEmpty, 'the primary serves them').describe(
    'A streaming replica for audit and monitoring reads (e.g. a load balancer port in front of the replicas); their answers carry `X-Data-Source` and `X-Data-Lag-Ms`.',
  ),
  READ_REPLICA_MAX_LAG_MS: integer(0, 3_600_000, 5000).describe(
    "A replica further behind the primary than this many milliseconds (measured against the primary's WAL position) is bypassed: reads go to the primary until it catches up.",
  ),
  ALLOW_PRIVILEGED_DATABASE_ROLE: flag(false).describe(
    "With `NODE_ENV=production`, start even when connected as a superuser or the tables' owner, which can rewrite the audit log (not recommended).",
  ),
  API_LOGIN_PASSWORD: optional(nonEmpty).describe(
    'Read by `npm run migrate` only: creates or updates `token_authority_api_login` with this password (16+ characters of A-Z a-z 0-9 _ -), for a deployment that migrates in a one-shot job.',
  ),
  PROJECTOR_LOGIN_PASSWORD: optional(nonEmpty).describe(
    'The same for `token_authority_projector_login`.',
  ),
  DATABASE_POOL_SIZE: integer(1, 200, 10).describe('Database connections per process.'),
  DATABASE_STATEMENT_TIMEOUT_MS: ms(2000).describe(
    "Longest a request's query may run, in milliseconds: a stalled database then gets 503 instead of a hang. Also how long an append may wait for its group commit.",
  ),
  DATABASE_LOCK_TIMEOUT_MS: ms(1000).describe(
    "Longest a request's query may wait for a lock, in milliseconds.",
  ),
  BACKGROUND_LOCK_TIMEOUT_MS: ms(60_000).describe(
    "Longest a background process's statement (the projector's batches and seals, the deliverer, operator commands) may wait for a lock, in milliseconds: a lock another session keeps holding becomes a logged failure, retried, instead of a wait without end.",
  ),
  DATABASE_CONNECT_TIMEOUT_MS: ms(2000).describe(
    'Longest a request may wait for a database connection (pool slot or new socket), in milliseconds.',
  ),
  IDLE_IN_TRANSACTION_TIMEOUT_MS: integer(100, undefined, 10_000).describe(
    'Sessions idle in a transaction longer than this many milliseconds are aborted (they would stall the projector).',
  ),
  EMBEDDED_PG_PORT: integer(
    1024,
    32_767,
    5433,
    'embedded Postgres needs a port below 32768',
  ).describe('Port of the embedded Postgres (below 32768).'),
};
