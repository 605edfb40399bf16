/** `npm run migrate`: applies pending migrations (safe to run beside a starting service). */
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit } from './config-exit.js';
import { parseCommandLine } from './args.js';

parseCommandLine(
  `Usage: npm run migrate
Applies pending migrations as the owner (MIGRATION_DATABASE_URL, else DATABASE_URL, else embedded).`,
  {},
);
const config = configOrExit();
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-migrate', 1, {
  timeouts: 'background',
});
logger.info('database is migrated');
await database.close();
