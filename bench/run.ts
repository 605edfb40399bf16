/**
 * `npm run bench [-- --duration 10 --connections 50 --no-write]`
 *
 * A real Postgres (embedded, synchronous_commit on), the API and projector as their own processes,
 * and three references in the same run: the Koa ceiling, node-oidc-provider in memory and durable
 * (./durable-peer.ts). Loads each with autocannon, accounts CPU and WAL, writes docs/benchmarks.md.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort as freePortBelow32768 } from '../src/net/free-port.js';
import { warmUp } from './load.js';
import { createMeasurer } from './measure.js';
import { bytesPerToken } from './storage.js';
import { serverSettings, startBenchDatabase } from './database.js';
import { benchClient } from './client.js';
import { serviceGroups, startProcess, stopAll, waitFor } from './processes.js';
import { renderReport, type BenchResults } from './report.js';
import { historySection, measuredCommit, runRow } from './history.js';
import { startBenchSinks } from './sinks.js';
import { peerTokenRequest } from './peer-client.js';
import { startDurablePeer } from './durable-peer.js';
import { measureTraced, tracedSection } from './traces.js';
import { assertionSection, measureAssertions } from './assertions.js';
import { measureStatusClaim, statusClaimSection } from './status-claim.js';
import { comparisonSection, measureComparison } from './compare.js';
import { compared, plan, rounds, SCOPES, traceRatios, values } from './options.js';

const AUDIENCE = 'storefront.api.local';
const root = path.resolve(import.meta.dirname, '..');
const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// --statements: Postgres keeps per-statement times, printed after each of our runs.
const database = await startBenchDatabase(
  'token-authority-bench-',
  values.statements ? { shared_preload_libraries: 'pg_stat_statements' } : {},
);
const { dataDir, postgres, pool } = database;
try {
  const settings = await serverSettings(pool);
  const [apiPort, metricsPort, ceilingPort, peerPort] = [
    await freePortBelow32768(),
    await freePortBelow32768(),
    await freePortBelow32768(),
    await freePortBelow32768(),
  ];
  const metricsOf = (port: number) => `http://127.0.0.1:${port}`;
  // Started before the service, so its deliverer finds both sinks from its first tick.
  const sinks = values.sinks ? await startBenchSinks() : undefined;
  const serviceEnv = {
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: values['log-level']!,
    TOKEN_AUDIENCES: AUDIENCE,
    // One client at full speed is the point here; the limits are still checked on every request.
    CLIENT_RATE_LIMIT_PER_MINUTE: '1000000000',
    SPACE_RATE_LIMIT_PER_MINUTE: '1000000000',
    ...(SCOPES ? { SCOPE_CATALOG: `file:${path.join(root, 'deploy/scope-catalog.json')}` } : {}),
    // npm start runs the deliverer (RUN_DELIVERER defaults to true): with these, it delivers.
    ...(sinks ? { AUDIT_SINKS: sinks.auditSinks } : {}),
  };
  progress('starting the service as npm start runs it, and the three references');
  // Our service exactly as `npm start` runs it by default (API_WORKERS, the projector as a child);
  // only the database is ours, so its CPU can be read. --profile: a CPU profile of each API
  // process lands in .data/profiles (open it in Chrome DevTools).
  const profileFlags = values.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, '.data/profiles')}`]
    : [];
  const serviceProcess = startProcess(
    'src/cli/start.ts',
    {
      ...serviceEnv,
      PORT: String(apiPort),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      RUN_PROJECTOR: values['no-projector'] ? 'false' : 'true',
    },
    profileFlags,
  );
  await waitFor(`http://127.0.0.1:${apiPort}/healthz`);
  const ceilingProcess = startProcess('bench/koa-ceiling.ts', { PORT: String(ceilingPort) });
  const peerProcess = startProcess('bench/peer-oidc-provider.ts', { PORT: String(peerPort) });
  await waitFor(`http://127.0.0.1:${ceilingPort}/echo`, { method: 'POST' });
  await waitFor(`http://127.0.0.1:${peerPort}/.well-known/openid-configuration`);
  const durablePeer = await startDurablePeer(pool, postgres.url);
  const { groups: ourGroups, apiProcesses, servers } = await serviceGroups(serviceProcess.pid!);

  const api = `http://127.0.0.1:${apiPort}`;
  const { tokenBody, privateRequest, publicRequest } = await benchClient(
    api,
    dataDir,
    AUDIENCE,
    SCOPES,
  );

  if (values.statements) await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const measure = createMeasurer(pool, plan, progress, values.statements);

  progress(
    `each target: ${plan.warmupSeconds}s warm-up + ${plan.durationSeconds}s, ${plan.connections} connections`,
  );
  const ceiling = await measure.reference('Koa hello-world JSON POST (ceiling)', ceilingProcess, {
    url: `http://127.0.0.1:${ceilingPort}/echo`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  });
  const peer = await measure.reference(
    'node-oidc-provider client_credentials, JWT EdDSA (peer)',
    peerProcess,
    peerTokenRequest(peerPort),
  );
  await warmUp(plan, durablePeer.request);
  const durableFirst = await durablePeer.round(measure, 1);
  // Warm both of our endpoints before measuring either: the first run of ours otherwise pays
  // for JIT and for the events table's first growth, and whichever went first looked slower.
  progress('warming our endpoints');
  await warmUp(plan, privateRequest);
  await warmUp(plan, publicRequest);
  const privateRun = await measure.ours(
    'ours: POST /v1/credential/token (private)',
    'private-token-issued',
    privateRequest,
    ourGroups,
    metricsOf(metricsPort),
    servers,
  );
  const publicRun = await measure.ours(
    'ours: POST /v1/issue (public)',
    'public-token-issued',
    publicRequest,
    ourGroups,
    metricsOf(metricsPort),
    servers,
  );
  // A second round of the durable peer after ours: its figure is the faster of the two, so the
  // ratio to it is the lower one (the machine's drift does not favour us).
  const durableSecond = await durablePeer.round(measure, 2);
  await durablePeer.close();
  const asserted =
    values.assertions &&
    (await measureAssertions(measure, { api, dataDir, audience: AUDIENCE }, ourGroups, servers, {
      metrics: metricsOf(metricsPort),
    }));
  // The same service with the other choice of API processes (1 if the default runs several, else
  // 2), for what workers buy here. Its events are projected by the first service's projector, so
  // that projector's CPU counts here too.
  const otherWorkers = apiProcesses === 1 ? 2 : 1;
  progress(`starting the service with API_WORKERS=${otherWorkers} for comparison`);
  const [singlePort, singleMetricsPort] = [await freePortBelow32768(), await freePortBelow32768()];
  const single = startProcess(
    'src/cli/start.ts',
    {
      ...serviceEnv,
      PORT: String(singlePort),
      METRICS_PORT: String(singleMetricsPort),
      HOST: '127.0.0.1',
      API_WORKERS: String(otherWorkers),
      RUN_PROJECTOR: 'false',
    },
    profileFlags,
  );
  await waitFor(`http://127.0.0.1:${singlePort}/healthz`);
  const singleRequest = {
    ...privateRequest,
    url: `http://127.0.0.1:${singlePort}/v1/credential/token`,
  };
  await warmUp(plan, singleRequest);
  const other = await serviceGroups(single.pid!);
  const singleRun = await measure.ours(
    `ours, API_WORKERS=${otherWorkers}: POST /v1/credential/token (private)`,
    'private-token-issued',
    singleRequest,
    { ...other.groups, projector: ourGroups.projector! },
    metricsOf(singleMetricsPort),
    other.servers,
  );
  single.kill('SIGTERM');
  const projector = ourGroups.projector!;
  const twins = { serviceEnv, plan, measure, privateRequest, projector, progress };
  const traced = await measureTraced({ ...twins, ratios: traceRatios });
  const statusClaim = values['status-claim'] && (await measureStatusClaim(twins));
  const comparison = compared && (await measureComparison(twins, compared, rounds));
  progress('measuring database bytes per token');
  const storage = await bytesPerToken(pool);
  const delivered = sinks && { ...(await sinks.received()), deadPort: sinks.deadPort };
  if (delivered) progress(`the webhook sink received ${delivered.events} events`);
  const results: BenchResults = {
    storage,
    apiProcesses,
    otherWorkers,
    singleRun,
    options: { ...plan, logLevel: values['log-level']! },
    postgres: {
      version: settings.v.split(' ').slice(0, 2).join(' '),
      synchronousCommit: settings.sc,
      fsync: settings.fsync,
    },
    ceiling,
    peer,
    durable: [durableFirst, durableSecond],
    privateRun,
    publicRun,
    lag: measure.lag,
    seal: measure.seal,
    ...(delivered ? { sinks: delivered } : {}),
  };
  const rendered = renderReport(results);
  const target = path.join(root, 'docs/benchmarks.md');
  const previous = await readFile(target, 'utf8').catch(() => undefined);
  const history = historySection(previous, runRow(results, measuredCommit(root), new Date()));
  const traces = traced.length > 0 ? `\n${tracedSection(traced)}` : '';
  const claimed = statusClaim ? `\n${statusClaimSection(statusClaim, peer)}` : '';
  const compares = comparison ? `\n${comparisonSection(comparison)}` : '';
  const report = `${rendered}${traces}${claimed}${compares}${asserted ? assertionSection(asserted, privateRun) : ''}\n${history}`;
  console.log(report);
  if (!values['no-write']) {
    await writeFile(target, report);
    progress('written to docs/benchmarks.md');
  }
} finally {
  stopAll();
  await database.stop();
}
