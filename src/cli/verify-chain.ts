/**
 * `npm run verify-chain`: recomputes the hash chain over the whole event log and names the first
 * sealed range that does not match. Exit code 0 when intact, 1 when not.
 */
import { checkChain } from '../audit-trail/check-chain.js';
import { progressOnStderr } from './progress.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit } from './config-exit.js';
import { parseCommandLine } from './args.js';

parseCommandLine(
  `Usage: npm run verify-chain
Recomputes the hash chain over the whole log; names the first sealed range that does not match.`,
  {},
);
const config = configOrExit('worker');
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'verify-chain');
const database = await openDatabase(config, logger, 'token-authority-verify-chain', 2, {
  timeouts: 'background',
});
const { sealed } = await database.handle.db
  .selectFrom('event_seals')
  .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('event_count'), eb.lit(0)).as('sealed'))
  .executeTakeFirstOrThrow();
const progress = progressOnStderr('verify-chain', { total: Number(sealed), unit: 'events' });
const verdict = await checkChain(database.handle.db, 5000, (checked) => progress.update(checked));
progress.finish(verdict.ok ? verdict.eventsChecked : 0);
console.log(JSON.stringify(verdict));
await database.close();
process.exitCode = verdict.ok ? 0 : 1;
