/**
 * `npm start`: the whole service. Postgres (embedded unless DATABASE_URL is set, restarted if it
 * dies), migrations, the API, and the projector as a separate child process (restarted if it
 * dies). Ctrl-C drains and stops all of it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer } from './api-server.js';
import {
  configOrExit,
  createLogger,
  exitOnConfigError,
  exitWithUsageIfAsked,
  onShutdownSignal,
  openDatabase,
} from './runtime.js';
import { supervise, type Supervised } from './supervise.js';

exitWithUsageIfAsked(`Usage: npm start
Runs the API, the projector and (without DATABASE_URL) an embedded Postgres. Settings: README.`);
const config = configOrExit();
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-api', undefined, {
  role: 'api',
}).catch(exitOnConfigError);
const api = await startApiServer(config, logger, database.handle);

let projector: Supervised | undefined;
if (config.RUN_PROJECTOR) {
  // projector.ts beside start.ts under tsx, projector.js beside start.js when compiled (image).
  const script = fileURLToPath(
    new URL(`./projector${path.extname(import.meta.url)}`, import.meta.url),
  );
  projector = supervise(
    'projector',
    () =>
      // An IPC channel: we ask it to stop, and it stops by itself if we die.
      // Same environment: with DATABASE_URL it connects there; embedded, it shares our cluster
      // and logs in as its own least-privileged role.
      spawn(process.execPath, [...process.execArgv, script], {
        env: process.env,
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      }),
    logger,
  );
}

onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await Promise.all([api.close(), projector?.stop()]);
  await database.close();
  logger.info('stopped');
});
