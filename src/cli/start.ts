/**
 * `npm start`: the whole service. Postgres (embedded unless DATABASE_URL is set, restarted if it
 * dies), migrations, API_WORKERS API processes sharing PORT (node:cluster; one runs in this process
 * when API_WORKERS=1), and the projector as a separate child process. Children are restarted if
 * they die. Ctrl-C drains and stops all of it.
 */
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayLimits } from '../limits/cluster-peers.js';
import { aggregateWorkerMetrics } from '../observability/cluster-metrics.js';
import { startApiServer, type ApiServer } from './api-server.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';
import { onShutdownSignal } from './process-lifecycle.js';
import { supervise, type Supervised } from './supervise.js';
import { parseCommandLine } from './args.js';

parseCommandLine(
  `Usage: npm start
Runs the API (API_WORKERS processes), the projector and (without DATABASE_URL) an embedded
Postgres. Settings: README.`,
  {},
);
const config = configOrExit();
const logger = createLogger(config);
// Migrated, and embedded Postgres started, before any child connects.
const database = await openDatabase(config, logger, 'token-authority-api', undefined, {
  role: 'api',
}).catch(exitOnConfigError);
// Siblings of this file: .ts under tsx, .js when compiled (the image).
const sibling = (name: string) =>
  fileURLToPath(new URL(`./${name}${path.extname(import.meta.url)}`, import.meta.url));

let api: ApiServer | undefined;
const workers: Supervised[] = [];
if (config.API_WORKERS === 1) {
  api = await startApiServer(config, logger, database.handle);
} else {
  // Each worker is `npm run api`, listening on the shared PORT; their limits meet here.
  cluster.setupPrimary({ exec: sibling('api'), execArgv: process.execArgv });
  relayLimits(() => Object.values(cluster.workers ?? {}));
  aggregateWorkerMetrics();
  for (let i = 1; i <= config.API_WORKERS; i++) {
    workers.push(
      supervise(`api worker ${i}`, () => cluster.fork({ API_WORKER: String(i) }).process, logger),
    );
  }
  logger.info({ workers: config.API_WORKERS, port: config.PORT }, 'API workers started');
}

let projector: Supervised | undefined;
if (config.RUN_PROJECTOR) {
  projector = supervise(
    'projector',
    () =>
      // An IPC channel: we ask it to stop, and it stops by itself if we die.
      // Same environment: with DATABASE_URL it connects there; embedded, it shares our cluster
      // and logs in as its own least-privileged role.
      spawn(process.execPath, [...process.execArgv, sibling('projector')], {
        env: process.env,
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      }),
    logger,
  );
}

onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await Promise.all([api?.close(), ...workers.map((worker) => worker.stop()), projector?.stop()]);
  await database.close();
  logger.info('stopped');
});
