/** `npm run migrate`: applies pending migrations (safe to run beside a starting service). */
import { configOrExit, createLogger, openDatabase } from './runtime.js';

const config = configOrExit();
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-migrate', 1, {
  timeouts: 'background',
});
logger.info('database is migrated');
await database.close();
