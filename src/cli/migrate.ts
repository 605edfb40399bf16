/**
 * `npm run migrate`: applies pending migrations as the owner (safe beside a starting service). With
 * API_LOGIN_PASSWORD / PROJECTOR_LOGIN_PASSWORD it also creates or updates the service logins, so a
 * deployment migrates in a one-shot job and hands each service only its own login.
 */
import { setServiceLogin } from '../db/privileges.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit } from './config-exit.js';
import { parseCommandLine } from '#settings/command-line.js';

parseCommandLine(
  `Usage: npm run migrate
Applies pending migrations as the owner (MIGRATION_DATABASE_URL, else DATABASE_URL, else embedded);
with API_LOGIN_PASSWORD / PROJECTOR_LOGIN_PASSWORD, also sets the service logins' passwords.`,
  {},
);
const config = configOrExit('worker');
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-migrate', 1, {
  timeouts: 'background',
  migrate: true,
});
const logins = [
  ['api', config.API_LOGIN_PASSWORD],
  ['projector', config.PROJECTOR_LOGIN_PASSWORD],
] as const;
// Run as the owner: this process's own connection is the owner's.
for (const [role, password] of logins) {
  if (!password) continue;
  await setServiceLogin(database.handle.pool, database.url, role, password);
  logger.info({ login: `token_authority_${role}_login` }, 'service login set');
}
logger.info('database is migrated');
await database.close();
