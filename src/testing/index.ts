/** `token-authority/testing`: the real service (API + projector) in-process, for integration tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer } from '../cli/api-server.js';
import { startProjectorService } from '../cli/projector-service.js';
import { openDatabase } from '../cli/runtime.js';
import { loadConfig } from '../config/config.js';
import { createLogger } from '../config/logger.js';
import { freePort } from '../net/free-port.js';
import { mintDevLoginToken } from '../crypto/login-tokens.js';

/** Options of {@link startTokenAuthority}; all optional. */
export interface TokenAuthorityOptions {
  /** A Postgres owner URL to use instead of the embedded one; the service logs in least-privileged. */
  readonly databaseUrl?: string;
  /** Audiences tokens may be issued for (default `storefront.test`). */
  readonly audiences?: readonly string[];
  /** API port (default: a free one). */
  readonly port?: number;
  /** Any other setting of the README's table, e.g. `{ PRIVATE_TOKEN_TTL_SECONDS: '60' }`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Service log level (default `silent`). */
  readonly logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** A running token service. */
export interface RunningTokenAuthority {
  /** Base URL of the API, e.g. `http://127.0.0.1:24513`. */
  readonly url: string;
  /** The `iss` of its tokens and the OAuth discovery issuer (the same as `url`). */
  readonly issuer: string;
  /** Audiences it issues tokens for. */
  readonly audiences: readonly string[];
  /** A development login token granting `space` (or several), as a dashboard user's. */
  loginToken(space: string | readonly string[], subject?: string): Promise<string>;
  /** Stops the API, the projector and the embedded Postgres, and deletes their data. */
  stop(): Promise<void>;
}

/** Starts the service (API + projector) and resolves once it answers. */
export async function startTokenAuthority(
  options: TokenAuthorityOptions = {},
): Promise<RunningTokenAuthority> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'token-authority-testing-'));
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const audiences = options.audiences ?? ['storefront.test'];
  const settings = {
    LOG_LEVEL: options.logLevel ?? 'silent',
    // Several test services on one host: /metrics on any free port unless the caller picks one.
    METRICS_PORT: '0',
    ...options.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    TOKEN_ISSUER: url,
    TOKEN_AUDIENCES: audiences.join(','),
    DATA_DIR: dataDir,
    MIGRATION_DATABASE_URL: options.databaseUrl,
    EMBEDDED_PG_PORT: options.databaseUrl ? undefined : String(await freePort()),
  };
  const config = loadConfig(settings);
  const logger = createLogger(config);
  const cleanUp: Array<() => Promise<unknown>> = [
    () => rm(dataDir, { recursive: true, force: true }),
  ];
  const stop = async () => {
    for (const step of cleanUp.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const apiDatabase = await openDatabase(config, logger, 'token-authority-testing-api', 10, {
      role: 'api',
    });
    cleanUp.push(() => apiDatabase.close());
    // The projector reaches the same server as its owner would: no second embedded Postgres.
    const owner = options.databaseUrl ?? apiDatabase.embedded?.url;
    if (!owner) throw new Error('no owner URL for the projector');
    const projectorConfig = loadConfig({ ...settings, MIGRATION_DATABASE_URL: owner });
    const projectorDatabase = await openDatabase(
      projectorConfig,
      logger,
      'token-authority-testing-projector',
      4,
      { role: 'projector', timeouts: 'background', migrate: false },
    );
    cleanUp.push(() => projectorDatabase.close());
    const projector = await startProjectorService(projectorConfig, logger, projectorDatabase);
    cleanUp.push(() => projector.stop());
    const api = await startApiServer(config, logger, apiDatabase.handle);
    cleanUp.push(() => api.close());
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    issuer: url,
    audiences,
    loginToken: (space, subject = 'test-user') =>
      mintDevLoginToken({
        dataDir,
        audience: config.LOGIN_AUDIENCE,
        spacesClaim: config.LOGIN_SPACES_CLAIM,
        subject,
        spaces: typeof space === 'string' ? [space] : space,
        ttlSeconds: 3600,
      }),
    stop,
  };
}
