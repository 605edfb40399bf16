import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpAllowedUrls } from '../config/production-urls.js';
import { listen } from '#audit-log/cli/listen.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import { connect, type DatabaseHandle } from '../db/database.js';
import { createReadRouter } from '../db/read-replica.js';
import { connectOptions } from './runtime.js';
import { databaseReadiness, readinessWith } from '../db/readiness.js';
import { isPrivileged, rolePrivileges } from '../db/privileges.js';
import { createApp } from '../http/app.js';
import { startApiTraces } from './traces.js';
import { forwardedFor } from '../http/forwarded.js';
import { mountRoutes, operationOf } from '../http/route.js';
import { healthRoutes } from '../http/routes/health.js';
import { auditStreamRoutes } from '../http/routes/audit-stream.js';
import { metricsRoutes } from '../http/routes/metrics.js';
import { openApiRoutes } from '../http/routes/openapi.js';
import { createMetrics } from '../observability/metrics.js';
import { scrapedSinkStatuses } from '../delivery/status.js';
import { keepPartitionsAhead } from '#event-log/partitions.js';
import { deadlinesHeld } from '#event-log/append-deadline.js';
import { startRotationOf } from './rotation-settings.js';
import type { CommandContext } from '../commands/context.js';
import { createCommandContext } from './command-context.js';
import { apiRoutes } from './api-routes.js';
import { createAppendNotifier } from '#event-log/notify.js';
import { loadAuditPublicKey } from '../audit-trail/audit-key.js';
import { createLoginTokenVerifier } from '../crypto/login-tokens.js';
import { signerLiveness, signerReadiness } from '../crypto/token-signer.js';
import { msOf } from '../domain/times.js';

/** A listening API and how to drain it. */
export interface ApiServer {
  readonly server: Server;
  readonly port: number;
  /** The port /metrics is served on (METRICS_PORT; the actual one when that is 0). */
  readonly metricsPort: number;
  /** Every route the API's routers serve (for the OpenAPI coverage test). */
  readonly served: ReadonlyArray<{ readonly method: string; readonly path: string }>;
  readonly commands: CommandContext;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then resolves. */
  close(): Promise<void>;
}

/** Wires routes to commands and starts listening on config.HOST:config.PORT. */
export async function startApiServer(
  config: Config,
  logger: Logger,
  database: DatabaseHandle,
  overrides: Partial<Pick<CommandContext, 'clock' | 'ids'>> = {},
): Promise<ApiServer> {
  const traces = await startApiTraces(config);
  const notifier = createAppendNotifier(database.pool);
  const metrics = createMetrics(database.db);
  const commands = await createCommandContext(config, logger, database, {
    ...overrides,
    listeners: [() => notifier.appended(), (events) => metrics.appended(events)],
    failed: (error) => metrics.appendFailed(error),
  });
  // Said at start and in /healthz: a service that could rewrite its own audit log.
  const privileges = await rolePrivileges(database.pool).catch(() => undefined);
  const warnings =
    privileges && isPrivileged(privileges)
      ? [
          `database role "${privileges.role}" can alter or disable the audit log (superuser or owner); connect as a login granted token_authority_api`,
        ]
      : [];
  logger.info(
    {
      loginIssuer: config.LOGIN_ISSUER ?? 'development key in DATA_DIR/dev-login-key.json',
      loginKeys: config.LOGIN_JWKS_URL ?? (config.LOGIN_PUBLIC_KEY ? 'LOGIN_PUBLIC_KEY' : 'local'),
      development: !config.LOGIN_JWKS_URL && !config.LOGIN_PUBLIC_KEY,
    },
    'login tokens are trusted from this issuer',
  );
  for (const url of httpAllowedUrls(config)) {
    logger.warn({ url }, 'plain http allowed by ALLOW_HTTP_HOSTS (a private network only)');
  }
  // Appends need a partition of the log for now: every API process keeps them made ahead.
  const stopPartitions = keepPartitionsAhead(database.db, logger);
  const stopRotation = startRotationOf(config, commands, logger);
  const readiness = databaseReadiness(database.pool);
  const forwarded = forwardedFor(config.TRUSTED_PROXY_HOPS, logger);
  // Audit and monitoring reads may go to a replica (READ_DATABASE_URL) while it is fresh enough.
  const replica = config.READ_DATABASE_URL
    ? connect(
        connectOptions(config, logger, {
          url: config.READ_DATABASE_URL,
          poolSize: Math.max(2, Math.ceil(config.DATABASE_POOL_SIZE / 2)),
          applicationName: 'token-authority-api-reads',
          timeouts: 'request',
        }),
      )
    : undefined;
  const reads = createReadRouter(database.db, replica?.db, {
    maxLagMs: config.READ_REPLICA_MAX_LAG_MS,
    checkMs: 500,
  });
  const loginVerifier = await createLoginTokenVerifier(config);
  const auditStream = auditStreamRoutes(commands, database.db, logger, {
    caps: {
      perProcess: config.AUDIT_STREAM_MAX,
      perSpace: config.AUDIT_STREAM_MAX_PER_SPACE,
      perSubject: config.AUDIT_STREAM_MAX_PER_USER,
    },
    heartbeatMs: msOf(config.AUDIT_STREAM_HEARTBEAT_SECONDS),
    pollMs: 250,
    reauthorizeMs: msOf(config.AUDIT_STREAM_REAUTHORIZE_SECONDS),
    login: loginVerifier,
  });
  metrics.watchDatabase(() => readiness.check());
  metrics.watchSinks(() =>
    scrapedSinkStatuses(database.db, (error) =>
      logger.warn({ err: error }, "spaces' sink statuses unread; /metrics shows the operator's"),
    ),
  );
  metrics.watchSizes(() => {
    const limiter = commands.limits.sizes();
    const credentials = commands.credentials.sizes();
    return {
      append_queue: commands.events.queued(),
      request_deadlines: deadlinesHeld(),
      credential_cache: credentials.known,
      unknown_client_cache: credentials.unknown,
      token_memo: commands.verifier.size(),
      revocations: commands.revocations.size(),
      limiter_clients: limiter.clients,
      limiter_failed_auth: limiter.failed_auth,
      limiter_failed_login: limiter.failed_login,
      failure_windows: commands.failures.size(),
      refusal_windows: commands.refusals.size(),
      authorization_refusal_windows: commands.authorizationRefusals.size(),
      audit_streams: auditStream.streams.size(),
      ...(commands.signer?.stats
        ? { signer_stuck_threads: commands.signer.stats().stuckThreads }
        : {}),
    };
  });
  const routes = apiRoutes(config, logger, {
    commands,
    db: database.db,
    reads,
    auditKey: await loadAuditPublicKey(config.AUDIT_PUBLIC_KEY, config.DATA_DIR),
    auditStream: auditStream.routes,
    health: healthRoutes(
      readinessWith(readiness, ...(commands.signer ? [signerReadiness(commands.signer)] : [])),
      logger,
      () => [...warnings, ...forwarded.warnings()],
      commands.signer ? signerLiveness(commands.signer) : undefined,
    ),
  });
  const router = mountRoutes(
    [
      ...routes,
      ...openApiRoutes(routes.map(operationOf), config.TOKEN_ISSUER, commands.scopeCatalog),
    ],
    {
      login: { verifier: loginVerifier, limits: commands.limits, refusals: commands.refusals },
      verifier: commands.verifier,
      streamsVerifier: commands.streamsVerifier,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      issuer: config.TOKEN_ISSUER,
    },
  );
  const app = createApp({
    logger,
    trustedProxyHops: config.TRUSTED_PROXY_HOPS,
    forwarded,
    observe: metrics.observeRequest,
    deadlineMs: config.REQUEST_DEADLINE_MS,
    routers: [router],
    ...(traces.app ? { traces: traces.app } : {}),
  });
  // /metrics never on the public port: its own listener, on loopback by default.
  const metricsApp = createApp({
    logger,
    trustedProxyHops: 0,
    routers: [mountRoutes(metricsRoutes(metrics))],
  });
  const metricsServer = createServer(metricsApp.callback());
  await listen(metricsServer, config.METRICS_PORT, config.METRICS_HOST, 'METRICS_PORT');
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  logger.info({ host: config.METRICS_HOST, port: metricsPort }, 'metrics listening');
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await listen(server, config.PORT, config.HOST, 'PORT').catch((error: unknown) => {
    metricsServer.close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: config.HOST, port }, 'API listening');
  const stopped = async () => {
    commands.keys.close();
    commands.spaceKeys?.store.close();
    stopRotation();
    stopPartitions();
    reads.close();
    void replica?.close();
    commands.revocations.close();
    // Counted failures are written as summaries before we go, not lost with the process.
    await Promise.all([
      commands.failures.close(),
      commands.refusals.close(),
      commands.authorizationRefusals.close(),
      commands.limits.close(),
    ])
      .catch((error: unknown) => logger.warn({ err: error }, 'failure summaries not written'))
      .then(() => notifier.close())
      // Last, so the spans of the requests that just finished are sent.
      .then(() => traces.export?.shutdown())
      .catch((error: unknown) => logger.warn({ err: error }, 'last spans not sent'));
  };
  return {
    server,
    port,
    metricsPort,
    served: router.stack.flatMap((layer) =>
      layer.methods
        .filter((method) => method !== 'HEAD')
        .map((method) => ({ method: method.toLowerCase(), path: layer.path as string })),
    ),
    commands,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
        // Live feeds end now (each records how it ended); they would hold the server open.
        auditStream.streams.close();
        metricsServer.close();
        metricsServer.closeAllConnections();
        server.close(() => {
          clearTimeout(timer);
          void stopped().then(resolve);
        });
        server.closeIdleConnections();
      }),
  };
}
