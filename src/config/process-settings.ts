import { availableParallelism } from 'node:os';
import { settingNotes } from '#settings/setting-notes.js';
import { flag, integer, oneOf, text } from '#settings/setting-types.js';

/** The processes `npm start` runs and what the API listens on. */
export const processSettings = {
  NODE_ENV: oneOf(['development', 'production', 'test'], 'development').describe(
    '`production` requires the settings a deployment must choose (see README, "What production needs") and refuses the development login key and a database role that can rewrite the audit log.',
  ),
  PORT: integer(0, 65_535, 8080).describe('HTTP port of the API (`0` picks a free one).'),
  HOST: text('0.0.0.0').describe('Address the API binds.'),
  // Half the CPUs, the rest Postgres's and the projector's: on 2 cores a second API process cost
  // 6-44% more CPU per token for 0.92-1.32x the throughput; with signing on the loop, 6-40% more
  // for 1.03x and 0.92x in two runs of three alternating rounds (`npm run bench --
  // --compare=API_WORKERS=1,2`).
  API_WORKERS: integer(1, 64, Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2))))
    .describe(
      'API processes `npm start` runs on `PORT` (node:cluster workers beside the supervising `npm start` process); they share rate limits and `/metrics`.',
    )
    .register(settingNotes, { computedDefault: 'half the CPUs, 1 to 4' }),
  METRICS_PORT: integer(0, 65_535, 9464).describe(
    "The port of `/metrics`, never the API's public `PORT` (`0`: any free port).",
  ),
  METRICS_HOST: text('127.0.0.1').describe(
    'Where `/metrics` listens: set it (e.g. `0.0.0.0`) only for a scraper on another host, on a private network.',
  ),
  BODY_LIMIT_BYTES: integer(256, 1_048_576, 16_384).describe(
    'Largest request body, in bytes; a larger one gets 413.',
  ),
  TRUSTED_PROXY_HOPS: integer(0, 10, 0).describe(
    "Proxies in front whose `X-Forwarded-For` is believed for the client IP; `0`: the socket's address.",
  ),
  REQUEST_DEADLINE_MS: integer(100, 600_000, 5000).describe(
    "Backstop: a request still unanswered after this many milliseconds gets 503 with `Retry-After`. Also the PKCS#11 signer's deadline: a batch unanswered this long gets its thread replaced, a request waiting this long for a batch is refused.",
  ),
  SHUTDOWN_TIMEOUT_MS: integer(100, 120_000, 10_000).describe(
    'How long shutdown waits for in-flight requests, in milliseconds.',
  ),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info').describe(
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
  ),
  DATA_DIR: text('.data').describe(
    'Local state: the embedded Postgres cluster and the keys generated when their settings are unset (git-ignored).',
  ),
  RUN_PROJECTOR: flag(true).describe('Whether `npm start` also starts the projector process.'),
  RUN_DELIVERER: flag(true).describe(
    'Whether `npm start` also starts the audit deliverer (`npm run deliver`: one delivers across replicas, by advisory lock; with no sink it only stands by).',
  ),
  MIGRATE_ON_START: flag(true).describe(
    "Whether a process applies pending migrations when it starts (as `MIGRATION_DATABASE_URL`'s owner, or `DATABASE_URL`'s). `npm start` turns it off for its children (it migrated already), and so does a deployment that migrates in a one-shot job.",
  ),
};
