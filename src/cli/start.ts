/**
 * `npm start`: the whole service. Postgres (embedded unless DATABASE_URL is set, restarted if it
 * dies), migrations, API_WORKERS API processes sharing PORT (node:cluster), and the projector and
 * the audit deliverer as child processes, each with only its own settings and secrets, restarted
 * if they die. Ctrl-C drains and stops all of it.
 */
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayLimits } from '../limits/cluster-peers.js';
import { aggregateWorkerMetrics } from '../observability/cluster-metrics.js';
import { createLogger, openDatabase } from './runtime.js';
import { exitOnConfigError, parseCommandLine } from '#settings/command-line.js';
import { configOrExit } from './config-exit.js';
import { loadConfig } from '../config/config.js';
import { loadAuditSigningKey } from '../audit-trail/audit-key.js';
import { onShutdownSignal } from './process-lifecycle.js';
import { supervise, type Supervised } from './supervise.js';
import { API_NODE_FLAGS } from '../config/node-flags.js';

parseCommandLine(
  `Usage: npm start
Runs the API (API_WORKERS processes), the projector, the audit deliverer and (without
DATABASE_URL) an embedded Postgres. Settings: README.`,
  {},
);
const config = configOrExit();
const logger = createLogger(config);
// The audit key pair exists before anything starts: the projector signs with it, the API serves
// its public half. Loaded first, so a bad setting stops us before the database starts.
const auditKey = await loadAuditSigningKey(config.AUDIT_SIGNING_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
// This process alone holds the owner's access: it migrates, makes the service logins, and starts
// the embedded Postgres; the children get only what each needs (childEnv below).
const database = await openDatabase(config, logger, 'token-authority-start', 1, {
  role: 'api',
}).catch(exitOnConfigError);
// The deliverer logs in as the projector does (it reads the log and writes its cursor rows).
const projectorUrl =
  config.RUN_PROJECTOR || config.RUN_DELIVERER
    ? await projectorLoginUrl().catch(exitOnConfigError)
    : undefined;
/** What each child may not know: secrets and places of the other processes' work. */
const WITHHELD = {
  // The internet-facing API: never the audit signing key, nor where checkpoints are written.
  api: ['AUDIT_SIGNING_KEY', 'AUDIT_CHECKPOINT_DIR'],
  // The projector signs checkpoints; it never issues tokens or checks secrets.
  projector: ['SECRET_HASH_KEY', 'SIGNING_KEY_ENCRYPTION_KEY', 'PKCS11_PIN', 'AUDIT_PUBLIC_KEY'],
  // The deliverer opens webhook secrets sealed under the KEK and signs pushed signal streams'
  // SETs with spaces' own local keys (never an HSM's: no PIN); it checks no secret.
  deliverer: [
    'SECRET_HASH_KEY',
    'PKCS11_PIN',
    'AUDIT_SIGNING_KEY',
    'AUDIT_PUBLIC_KEY',
    'AUDIT_CHECKPOINT_DIR',
  ],
};

// Siblings of this file: .ts under tsx, .js when compiled (the image).
const sibling = (name: string) =>
  fileURLToPath(new URL(`./${name}${path.extname(import.meta.url)}`, import.meta.url));

// Each worker is `npm run api`, listening on the shared PORT; their limits meet here.
cluster.setupPrimary({ exec: sibling('api'), execArgv: [...process.execArgv, ...API_NODE_FLAGS] });
relayLimits(() => Object.values(cluster.workers ?? {}));
aggregateWorkerMetrics();
const workers = Array.from({ length: config.API_WORKERS }, (_, k) => {
  const env = childEnv('api', {
    API_WORKER: String(k + 1),
    DATABASE_URL: database.url,
    AUDIT_PUBLIC_KEY: JSON.stringify(auditKey.publicJwk),
  });
  return supervise(`api worker ${k + 1}`, () => cluster.fork(env).process, logger);
});
logger.info({ workers: config.API_WORKERS, port: config.PORT }, 'API workers started');

// A child with an IPC channel: we ask it to stop, and it stops by itself if we die.
const child = (file: string, env: Record<string, string>) => () =>
  spawn(process.execPath, [...process.execArgv, file], {
    env: { ...process.env, ...env },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
let projector: Supervised | undefined;
const archiveOwnerUrl = config.MIGRATION_DATABASE_URL ?? database.embedded?.url;
if (projectorUrl && config.RUN_PROJECTOR) {
  const env = childEnv('projector', {
    DATABASE_URL: projectorUrl,
    // Archiving drops partitions, which only the owner may: the projector holds the owner's URL
    // when, and only when, it is asked to archive.
    ...(config.ARCHIVE_DIR && archiveOwnerUrl ? { MIGRATION_DATABASE_URL: archiveOwnerUrl } : {}),
  });
  projector = supervise('projector', child(sibling('projector'), env), logger);
}

// The deliverer: its own child, so a sink that hangs never costs the API or the projector a tick.
// Started once an API worker listens: issuance comes up first, delivery follows the log after.
let deliverer: Supervised | undefined;
if (projectorUrl && config.RUN_DELIVERER) {
  const env = childEnv('deliverer', { DATABASE_URL: projectorUrl });
  cluster.once('listening', () => {
    deliverer ??= supervise('deliverer', child(sibling('deliver'), env), logger);
  });
}

onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await Promise.all([
    ...workers.map((worker) => worker.stop()),
    projector?.stop(),
    deliverer?.stop(),
  ]);
  await database.close();
  logger.info('stopped');
});

/**
 * What a child's environment changes from ours: its own database login, no owner's URL, no
 * migrations (done), and nothing WITHHELD from it. Empty means unset (config.ts).
 */
function childEnv(
  role: keyof typeof WITHHELD,
  own: Record<string, string>,
): Record<string, string> {
  const withheld = Object.fromEntries(WITHHELD[role].map((name) => [name, '']));
  return { MIGRATION_DATABASE_URL: '', MIGRATE_ON_START: 'false', ...withheld, ...own };
}

/** The projector's login URL, made (embedded, or with MIGRATION_DATABASE_URL) if needed. */
async function projectorLoginUrl(): Promise<string> {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  // The same server as ours, reached as its owner: no second embedded Postgres.
  const owner = config.MIGRATION_DATABASE_URL ?? database.embedded?.url;
  const ownerConfig = loadConfig({ ...process.env, MIGRATION_DATABASE_URL: owner });
  const opened = await openDatabase(ownerConfig, logger, 'token-authority-start', 1, {
    role: 'projector',
    migrate: false,
    timeouts: 'background',
  });
  await opened.close();
  return opened.url;
}
