/**
 * `npm run bench:growth -- [--tokens=100000] [--connections=50] [--env KEY=VALUE ...]`
 *
 * What the log costs on disk: starts a real Postgres (embedded) and the service as npm start runs
 * it, issues `--tokens` tokens (half private, half public, in rounds), and reports the database's
 * bytes per token, table by table, after VACUUM. With the archive settings in `--env` it is the
 * growth run of docs/capacity.md: the database stays the size of the hot window.
 */
import autocannon from 'autocannon';
import { parseCommandLine } from '#settings/command-line.js';
import { freePort } from '../src/net/free-port.js';
import { benchClient } from './client.js';
import { startProcess, stopAll, waitFor } from './processes.js';
import { bytesPerToken, storageBreakdown } from './storage.js';
import { startBenchDatabase } from './database.js';

const USAGE = `Usage: npm run bench:growth -- [--tokens=<n>] [--round=<n>] [--connections=<n>]
       [--env=KEY=VALUE]...
Issues <n> tokens (half private, half public) and reports database bytes per token.`;
const { values } = parseCommandLine(USAGE, {
  tokens: { type: 'string', default: '100000' },
  round: { type: 'string', default: '50000' },
  connections: { type: 'string', default: '50' },
  env: { type: 'string', multiple: true, default: [] },
});
const AUDIENCE = 'storefront.api.local';
const log = (message: string) => process.stderr.write(`[growth] ${message}\n`);
const extraEnv = Object.fromEntries(
  (values.env as string[]).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

const database = await startBenchDatabase('token-authority-growth-');
const { dataDir, postgres, pool } = database;
try {
  const port = await freePort();
  const service = startProcess('src/cli/start.ts', {
    DATABASE_URL: postgres.url,
    MIGRATION_DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_AUDIENCES: AUDIENCE,
    CLIENT_RATE_LIMIT_PER_MINUTE: '1000000000',
    SPACE_RATE_LIMIT_PER_MINUTE: '1000000000',
    PORT: String(port),
    METRICS_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    ...extraEnv,
  });
  const api = `http://127.0.0.1:${port}`;
  await waitFor(`${api}/healthz`);
  const { privateRequest, publicRequest } = await benchClient(api, dataDir, AUDIENCE);
  const requests = [privateRequest, publicRequest];
  const total = Number(values.tokens);
  const round = Number(values.round);
  const started = Date.now();
  let issued = 0;
  for (let i = 0; issued < total; i += 1) {
    const amount = Math.min(round, total - issued);
    const result = await autocannon({
      ...requests[i % 2]!,
      connections: Number(values.connections),
      amount,
    });
    issued += result['2xx'];
    if (result.non2xx > 0) log(`${result.non2xx} answers were not 2xx`);
    const { rows } = await pool.query<{ size: string }>(
      'SELECT pg_database_size(current_database()) AS size',
    );
    log(
      `${issued.toLocaleString('en')} tokens in ${Math.round((Date.now() - started) / 1000)} s, database ${(Number(rows[0]!.size) / 1e6).toFixed(1)} MB`,
    );
  }
  const { bytes, tokens } = await bytesPerToken(pool);
  const lines = [
    `tokens issued: ${issued.toLocaleString('en')}; in the live log: ${tokens.toLocaleString('en')}`,
    `bytes per token (every table, index and TOAST, after VACUUM): ${Math.round(bytes / Math.max(tokens, 1))}`,
    '',
    '| relation | kind | bytes | bytes per token |',
    '| --- | --- | ---: | ---: |',
    ...(await storageBreakdown(pool))
      .filter((row) => row.bytes > 256 * 1024)
      .map(
        (row) =>
          `| ${row.relation} | ${row.kind} | ${row.bytes.toLocaleString('en')} | ${(row.bytes / Math.max(tokens, 1)).toFixed(1)} |`,
      ),
  ];
  console.log(lines.join('\n'));
  service.kill('SIGTERM');
} finally {
  stopAll();
  await database.stop();
}
