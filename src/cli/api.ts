/** `npm run api`: the API alone (the projector runs elsewhere, as in docker-compose). */
import { startApiServer } from './api-server.js';
import {
  configOrExit,
  createLogger,
  exitOnConfigError,
  exitWithUsageIfAsked,
  onShutdownSignal,
  openDatabase,
} from './runtime.js';

exitWithUsageIfAsked(`Usage: npm run api
Runs the API alone (the projector elsewhere). Settings: README, "Configuration".`);
const config = configOrExit();
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-api', undefined, {
  role: 'api',
}).catch(exitOnConfigError);
const api = await startApiServer(config, logger, database.handle);
onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await api.close();
  await database.close();
});
