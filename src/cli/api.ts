/**
 * `npm run api`: the API alone (the projector runs elsewhere, as in docker-compose). Also what
 * each API worker of `npm start` runs.
 */
import cluster from 'node:cluster';
import { startApiServer } from './api-server.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit } from './config-exit.js';
import { runService } from './process-lifecycle.js';
import { parseCommandLine } from '#settings/command-line.js';

parseCommandLine(
  `Usage: npm run api
Runs the API alone (the projector elsewhere). Settings: README, "Configuration".`,
  {},
);
const config = configOrExit();
const logger = createLogger(config);
await runService(
  config,
  logger,
  () => openDatabase(config, logger, 'token-authority-api', undefined, { role: 'api' }),
  async (database) => {
    const api = await startApiServer(config, logger, database.handle);
    return async (reason) => {
      if (reason !== 'parent gone' || !cluster.isWorker) return api.close();
      // npm start died, and the listening socket with it: server.close() would wait for a
      // primary that cannot answer. Drop what is left and go.
      api.server.closeAllConnections();
      await Promise.race([api.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    };
  },
);
