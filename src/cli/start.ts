/**
 * `npm start`: the whole service. Postgres (embedded unless DATABASE_URL is set), migrations, the
 * API, and the projector as a separate child process. Ctrl-C drains and stops all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startApiServer } from './api-server.js';
import { configOrExit, createLogger, onShutdownSignal, openDatabase } from './runtime.js';

const config = configOrExit();
const logger = createLogger(config);
const database = await openDatabase(config, logger, 'token-authority-api');
const api = await startApiServer(config, logger, database.handle);

let projector: ChildProcess | undefined;
if (config.RUN_PROJECTOR) {
  projector = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL('./projector.ts', import.meta.url))],
    // An IPC channel: we ask it to stop, and it stops by itself if we die.
    {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    },
  );
  projector.on('exit', (code, signal) => {
    if (!stopping) logger.error({ code, signal }, 'projector exited; API keeps serving');
  });
}

let stopping = false;
onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
  stopping = true;
  const projectorExited =
    projector && projector.exitCode === null && projector.signalCode === null
      ? new Promise<void>((resolve) => projector!.once('exit', () => resolve()))
      : Promise.resolve();
  if (projector?.connected) projector.send('shutdown');
  await Promise.all([api.close(), projectorExited]);
  await database.close();
  logger.info('stopped');
});
