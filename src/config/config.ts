import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { productionUrlProblems } from './production-urls.js';
import { auditTrailSettings } from './audit-settings.js';
import { signingSettings } from './signing-settings.js';

const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  )
  .pipe(z.array(z.string().min(1)).min(1, 'needs at least one comma-separated value'));

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

// Token lifetimes: at most a day, so a revocation list only ever holds a day of revocations.
const tokenSeconds = z.coerce.number().int().min(1).max(86_400, 'at most 86400 (one day)');

/**
 * Every setting the service reads, with its default. The README's configuration table mirrors
 * this schema; keep them in step.
 */
// Settings whose values are secrets (keys) or carry them (connection strings with passwords).
const SECRET_SETTING = /KEY|SECRET|PASSWORD|PIN|DATABASE_URL/;

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * API processes `npm start` runs on PORT (node:cluster); they share their limits. Default: half
   * the CPUs, 1 to 4: the other half is Postgres's and the projector's. On 2 cores a second API
   * process kept the cores busier but cost 6-44% more API CPU per token, for 0.92-1.32x the
   * throughput over six runs (docs/performance.md).
   */
  API_WORKERS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2)))),
  /** /metrics is served here, never on the API's public PORT (0: any free port). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /** Where /metrics listens: loopback unless a scraper elsewhere must reach it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
  MIGRATION_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
  ALLOW_PRIVILEGED_DATABASE_ROLE: booleanFlag.default(false),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2000),
  DATABASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(1000),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2000),
  APPEND_QUEUE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  REQUEST_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(32_767, 'embedded Postgres needs a port below 32768')
    .default(5433),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TOKEN_ISSUER: z.url().default('http://localhost:8080'),
  TOKEN_AUDIENCES: commaList.default(['storefront.api.local']),
  PRIVATE_TOKEN_TTL_SECONDS: tokenSeconds.default(3600),
  PUBLIC_TOKEN_TTL_SECONDS: tokenSeconds.default(900),
  SECRET_HASH_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9+/_-]{43,}={0,2}$/,
      'expected at least 32 bytes in base64 or base64url (43+ characters)',
    )
    .optional(),
  /** 32 bytes in base64 or base64url, or `file:<path>` of a file holding them (mode 600). */
  SIGNING_KEY_ENCRYPTION_KEY: z.string().min(1).optional(),
  ...signingSettings,
  LOGIN_JWKS_URL: z.url().optional(),
  /** Hosts production may reach over plain http (TOKEN_ISSUER, LOGIN_JWKS_URL): private names only. */
  ALLOW_HTTP_HOSTS: commaList.optional(),
  LOGIN_PUBLIC_KEY: z.string().min(1).optional(),
  LOGIN_ISSUER: z.string().min(1).optional(),
  LOGIN_AUDIENCE: z.string().min(1).default('token-authority'),
  LOGIN_SPACES_CLAIM: z.string().min(1).default('spaces'),
  LOGIN_ROLE_CLAIM: z.string().min(1).default('role'),
  /** The role of a login token without the role claim: the least unless chosen otherwise. */
  LOGIN_DEFAULT_ROLE: z.enum(['auditor', 'admin']).default('auditor'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(16_384),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LOGIN_TOKEN_MAX_AGE_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(43_200),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  PROJECTOR_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  PROJECTOR_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1000),
  // The hash chains are sealed at most this often (or at once after a full batch): one seal row
  // per range and space, so a trickle of traffic does not cost a row per event.
  SEAL_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  RUN_PROJECTOR: booleanFlag.default(true),
  /** Whether `npm start` also runs the audit deliverer (it stands by while no sink exists). */
  RUN_DELIVERER: booleanFlag.default(true),
  /** Apply pending migrations at start (as MIGRATION_DATABASE_URL's owner, or DATABASE_URL's). */
  MIGRATE_ON_START: booleanFlag.default(true),
  /** Read by `npm run migrate` only: the passwords it gives the two service logins. */
  API_LOGIN_PASSWORD: z.string().min(1).optional(),
  PROJECTOR_LOGIN_PASSWORD: z.string().min(1).optional(),
  SIGNING_KEY_REFRESH_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
  CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  // A large storefront: ~10 million sessions a day peak near 300 new sessions (public tokens) a
  // second, 18,000 a minute; its servers add one private token each per token lifetime.
  CLIENT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000_000).default(30_000),
  // Four such clients in one space; what one tenant can take of a process, whatever its clients.
  SPACE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000_000).default(120_000),
  // How API processes share what they spent: `postgres` (LISTEN/NOTIFY; every replica of a
  // deployment) or `host` (through npm start's primary; the workers of one host only).
  LIMITS_SYNC: z.enum(['postgres', 'host']).default('postgres'),
  FAILED_AUTH_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(10),
  FAILED_AUTH_EVENTS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(10),
  LIMITER_MAX_KEYS: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  /** A streaming replica for audit and monitoring reads (the primary serves them when unset). */
  READ_DATABASE_URL: z.string().min(1).optional(),
  // A replica further behind the primary than this is bypassed: reads go to the primary.
  READ_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  // The log's time partitions (issue 20): each covers this Postgres interval, written to the
  // database by the migration step; `<n> minute(s)|hour(s)|day(s)|week(s)|month(s)|year(s)`.
  EVENT_PARTITION_INTERVAL: z
    .string()
    .regex(
      /^[1-9]\d{0,4} (minute|hour|day|week|month|year)s?$/,
      'a Postgres interval such as "1 month", "7 days" or "1 minute"',
    )
    .default('1 month'),
  // Where `npm run archive` (and the projector's leader, with RETENTION_HOT_DAYS) writes the
  // partitions it takes out of the database: gzipped NDJSON, never rewritten.
  ARCHIVE_DIR: z.string().min(1).optional(),
  // With ARCHIVE_DIR and MIGRATION_DATABASE_URL, the projector's leader archives every partition
  // that ended more than this many days ago (a fraction of a day is allowed, for drills).
  RETENTION_HOT_DAYS: z.coerce.number().positive().max(36_500).default(90),
  // Partitions kept ready ahead of the current one, so an append never finds none.
  EVENT_PARTITIONS_AHEAD: z.coerce.number().int().min(1).max(1000).default(3),
  // How long the rate views keep their buckets (the events stay in the log).
  RATE_MINUTE_RETENTION_HOURS: z.coerce.number().int().min(1).max(8760).default(48),
  RATE_HOUR_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  // How often each API process reads revocations made by the others: a revoked token is refused
  // by every replica within about this (plus a query).
  REVOCATION_REFRESH_MS: z.coerce.number().int().min(50).max(60_000).default(250),
  // Unexpired revocations held in memory per API process (~100 B each); past it, ids not held
  // are asked of the database, so memory stays bounded whatever the tenants revoke.
  REVOCATION_LOOKUP_MAX_ENTRIES: z.coerce.number().int().min(1).max(100_000_000).default(1_000_000),
  // How long a rotation's sealed response answers a retry with the same Idempotency-Key: long
  // enough for any client's retries, short enough that no sealed secret lingers.
  IDEMPOTENCY_KEY_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  UNKNOWN_CLIENT_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  PROJECTOR_HEALTH_MAX_LAG_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * The scope catalog: each audience's scopes, as JSON or `file:<path>` (deploy/scope-catalog.json
   * is the development audience's). Unset: no scopes, tokens carry none.
   */
  SCOPE_CATALOG: z.string().min(1).optional(),
  ...auditTrailSettings,
});

/** The validated, typed configuration. Immutable once loaded. */
export type Config = Readonly<z.infer<typeof configSchema>>;

/** A configuration that failed validation; `problems` name each variable and what it expects. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    // One problem, one line (what an operator greps for); several, one line each.
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n  ${problems.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * What the process is for: `issuer` (the API, `npm start`, the key commands) verifies login tokens
 * and seals signing keys, so production requires an external login issuer and
 * SIGNING_KEY_ENCRYPTION_KEY; `worker` (the projector, migrations, archives, chain checks) does
 * neither, and is not made to hold secrets it never uses.
 */
export type ConfigPurpose = 'issuer' | 'worker';

/** Validates `env` (default `process.env`); throws {@link ConfigError} naming every bad variable. */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  purpose: ConfigPurpose = 'issuer',
): Config {
  // Empty strings mean "unset" so `FOO= npm start` falls back to the default.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const variable = issue.path.join('.') || '(environment)';
        // A secret's value is never echoed, not even a wrong one (it may be the right one mistyped).
        const shown = variable in present && !SECRET_SETTING.test(variable);
        return `${variable}: ${issue.message}${shown ? ` (got "${present[variable]}")` : ''}`;
      }),
    );
  }
  if (parsed.data.LOGIN_JWKS_URL && parsed.data.LOGIN_PUBLIC_KEY) {
    throw new ConfigError(['LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: set one of them, not both']);
  }
  const production = parsed.data.NODE_ENV === 'production' && purpose === 'issuer';
  if (production && !parsed.data.LOGIN_JWKS_URL && !parsed.data.LOGIN_PUBLIC_KEY) {
    throw new ConfigError([
      'LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: with NODE_ENV=production one of them (and LOGIN_ISSUER) is required; the development login key is never trusted in production',
    ]);
  }
  const urlProblems = production ? productionUrlProblems(parsed.data, present) : [];
  if (urlProblems.length > 0) throw new ConfigError(urlProblems);
  if (production && !parsed.data.SIGNING_KEY_ENCRYPTION_KEY) {
    throw new ConfigError([
      'SIGNING_KEY_ENCRYPTION_KEY: with NODE_ENV=production it is required (32 bytes in base64 or base64url, or file:<path> of a file holding them); token signing keys are stored sealed under it, never in the clear',
    ]);
  }
  if ((parsed.data.LOGIN_JWKS_URL || parsed.data.LOGIN_PUBLIC_KEY) && !parsed.data.LOGIN_ISSUER) {
    throw new ConfigError([
      'LOGIN_ISSUER: required when an external login-token key is configured',
    ]);
  }
  return Object.freeze(parsed.data);
}
