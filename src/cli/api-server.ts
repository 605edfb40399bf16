import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { DatabaseHandle } from '../db/database.js';
import { databaseReadiness } from '../db/readiness.js';
import { createApp } from '../http/app.js';
import { healthRoutes } from '../http/routes/health.js';

/** A listening API and how to drain it. */
export interface ApiServer {
  readonly server: Server;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then resolves. */
  close(): Promise<void>;
}

/** Wires routes to commands and starts listening on config.HOST:config.PORT. */
export async function startApiServer(
  config: Config,
  logger: Logger,
  database: DatabaseHandle,
): Promise<ApiServer> {
  const app = createApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    routers: [healthRoutes(databaseReadiness(database.pool))],
  });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: config.HOST, port }, 'API listening');
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
