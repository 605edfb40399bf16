import path from 'node:path';
import { ConfigError, type Config } from '../config/config.js';
import { createLogger, type Logger } from '../config/logger.js';
import { connect, type ConnectOptions, type DatabaseHandle } from '../db/database.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../db/embedded-postgres.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { migrate } from '../db/migrate.js';
import { isDatabaseUnavailable } from '../db/postgres-errors.js';
import {
  ensureServiceLogin,
  isPrivileged,
  rolePrivileges,
  type RolePrivileges,
  type ServiceRole,
} from '../db/privileges.js';

/** A migrated database and how to let go of it. */
export interface OpenDatabase {
  readonly url: string;
  readonly handle: DatabaseHandle;
  readonly embedded?: EmbeddedPostgres;
  /** What the service's role may do (for the service roles; undefined for `owner`). */
  readonly privileges?: RolePrivileges;
  close(): Promise<void>;
}

/** How a process opens its database (openDatabase's options). */
export interface OpenOptions {
  /** Only use an embedded Postgres that is already running (health checks). */
  readonly attachOnly?: boolean;
  readonly migrate?: boolean;
  /** `request` (default): DATABASE_*_TIMEOUT_MS; `background`: BACKGROUND_LOCK_TIMEOUT_MS alone. */
  readonly timeouts?: 'request' | 'background';
  /** The least-privileged service role to connect as (its login made if we manage them), or the owner. */
  readonly role?: ServiceRole | 'owner';
}

/**
 * DATABASE_URL when set, else the embedded Postgres in DATA_DIR/postgres (restarted if it dies);
 * migrated either way. Concurrent migrations are safe (migrate takes an advisory lock).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  applicationName: string,
  poolSize = config.DATABASE_POOL_SIZE,
  options: OpenOptions = {},
): Promise<OpenDatabase> {
  // Without DATABASE_URL we make the service's logins ourselves, as the owner.
  const managedLogins = !config.DATABASE_URL;
  const embedded =
    config.DATABASE_URL || config.MIGRATION_DATABASE_URL
      ? undefined
      : await startEmbeddedPostgres({
          baseDir: path.resolve(config.DATA_DIR, 'postgres'),
          port: config.EMBEDDED_PG_PORT,
          persistent: true,
          supervise: true,
          attachOnly: options.attachOnly,
          logger: logger.child({ component: 'embedded-postgres' }),
        });
  const role = options.role ?? 'owner';
  const ownerUrl = config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL ?? embedded?.url;
  if (!ownerUrl) throw new Error('no database: set DATABASE_URL');
  let url = role === 'owner' ? ownerUrl : (config.DATABASE_URL ?? ownerUrl);
  const connectAs = (url: string, poolSize: number, name: string, timeouts = options.timeouts) =>
    connect(connectOptions(config, logger, { url, poolSize, applicationName: name, timeouts }));
  const fail = async (handle: DatabaseHandle, error: unknown): Promise<never> => {
    await handle.close();
    await embedded?.stop();
    throw error;
  };
  // The service never keeps an owner connection: one for the migrations and logins, then closed.
  const migrations = options.migrate ?? config.MIGRATE_ON_START;
  if (migrations || (managedLogins && role !== 'owner')) {
    const owner = connectAs(ownerUrl, 1, `${applicationName}-owner`, 'background');
    try {
      if (migrations) {
        const applied = await untilDatabaseAnswers(logger, () => migrate(owner.pool));
        if (applied.length > 0) logger.info({ applied }, 'migrations applied');
        const { EVENT_PARTITION_INTERVAL: interval, EVENT_PARTITIONS_AHEAD: ahead } = config;
        await untilDatabaseAnswers(logger, () =>
          configurePartitioning(owner.pool, { interval, ahead }),
        );
      }
      if (managedLogins && role !== 'owner') {
        url = await untilDatabaseAnswers(logger, () =>
          ensureServiceLogin(owner.pool, ownerUrl, role, path.resolve(config.DATA_DIR, 'postgres')),
        );
      }
    } catch (error) {
      await fail(owner, error);
    }
    await owner.close();
  }
  const handle = connectAs(url, poolSize, applicationName);
  let privileges: RolePrivileges | undefined;
  if (role !== 'owner') {
    privileges = await untilDatabaseAnswers(logger, () => rolePrivileges(handle.pool));
    if (!isPrivileged(privileges)) {
      logger.info({ role: privileges.role }, 'connected as a least-privileged role');
    } else {
      logger.warn(
        { role: privileges.role, superuser: privileges.superuser, ownsLog: privileges.ownsLog },
        'the service connects as a role that can rewrite the audit log (superuser or owner of its tables); ' +
          `connect as a login granted token_authority_${role} instead (docs/operations.md, "Database roles")`,
      );
      if (config.NODE_ENV === 'production' && !config.ALLOW_PRIVILEGED_DATABASE_ROLE) {
        await fail(
          handle,
          new ConfigError([
            `DATABASE_URL: role "${privileges.role}" can alter or disable the audit log; NODE_ENV=production refuses it (connect as a login granted token_authority_${role}, or set ALLOW_PRIVILEGED_DATABASE_ROLE=true)`,
          ]),
        );
      }
    }
  }
  return {
    url,
    handle,
    embedded,
    privileges,
    async close() {
      await handle.close();
      await embedded?.stop();
    },
  };
}

/** How a process of ours connects: the configured timeouts, and connection errors logged, not thrown. */
export function connectOptions(
  config: Config,
  logger: Logger,
  {
    timeouts,
    ...target
  }: Pick<ConnectOptions, 'url' | 'poolSize' | 'applicationName'> & Pick<OpenOptions, 'timeouts'>,
): ConnectOptions {
  const background = timeouts === 'background';
  let lastWarning = 0;
  return {
    ...target,
    idleInTransactionTimeoutMs: config.IDLE_IN_TRANSACTION_TIMEOUT_MS,
    statementTimeoutMs: background ? 0 : config.DATABASE_STATEMENT_TIMEOUT_MS,
    lockTimeoutMs: background ? config.BACKGROUND_LOCK_TIMEOUT_MS : config.DATABASE_LOCK_TIMEOUT_MS,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    onConnectionError: (error) => {
      // One line per second at most: an outage drops every connection at once.
      if (Date.now() - lastWarning < 1000) return;
      lastWarning = Date.now();
      logger.warn({ err: error }, 'database connection lost; requests get 503 until it is back');
    },
  };
}

/**
 * Runs `work` until it succeeds, retrying with backoff (up to 5 s apart) while the database is
 * unavailable, so a process started during an outage waits; any other error is thrown at once.
 */
export async function untilDatabaseAnswers<T>(logger: Logger, work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const delayMs = Math.min(250 * 2 ** attempt, 5000);
      logger.warn({ err: error, retryInMs: delayMs }, 'database unavailable; waiting for it');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

export { createLogger };
