/**
 * `npm run api`: the API alone (the projector runs elsewhere, as in docker-compose). Also what
 * each API worker of `npm start` runs.
 */
import cluster from 'node:cluster';
import { startApiServer, type ApiServer } from './api-server.js';
import { createLogger, openDatabase, type OpenDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';
import { followParent, onShutdownSignal } from './process-lifecycle.js';
import { parseCommandLine } from '#audit-log/cli/command-line.js';

parseCommandLine(
  `Usage: npm run api
Runs the API alone (the projector elsewhere). Settings: README, "Configuration".`,
  {},
);
const config = configOrExit();
const logger = createLogger(config);
const started: { database?: OpenDatabase; api?: ApiServer } = {};
// Listening for a stop before starting: a worker of `npm start` may be asked while it starts.
const stop = onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async (reason) => {
  const { api, database } = started;
  if (api && reason === 'parent gone' && cluster.isWorker) {
    // npm start died: the listening socket died with it, and server.close() would wait for a
    // primary that cannot answer. Drop what is left and go.
    api.server.closeAllConnections();
    await Promise.race([api.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
  } else {
    await api?.close();
  }
  await database?.close();
});
// As a worker of `npm start` (API_WORKERS > 1): stop when it asks, or when it is gone.
followParent(stop);
started.database = await openDatabase(config, logger, 'token-authority-api', undefined, {
  role: 'api',
}).catch(exitOnConfigError);
started.api = await startApiServer(config, logger, started.database.handle).catch(
  exitOnConfigError,
);
