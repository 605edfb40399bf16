/**
 * `npm run bench [-- --duration 10 --connections 50 --no-write]`
 *
 * Starts a real Postgres (embedded, synchronous_commit on), the API and the projector as their own
 * processes, and two references in the same run: the Koa hello-world ceiling and node-oidc-provider.
 * Loads each on loopback with autocannon, accounts every process's CPU, and writes the report
 * (bench/report.ts) to docs/benchmarks.md unless --no-write.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { parseCommandLine } from '../src/cli/args.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { mintDevLoginToken } from '../src/tokens/login-tokens.js';
import { freePort as freePortBelow32768 } from '../src/reliability/harness.js';
import { commandLine, descendants } from '../src/observability/proc.js';
import { cpuByGroup, cpuMsPer, type CpuGroups } from './cpu.js';
import { load, warmUp, type LoadPlan, type Measured } from './load.js';
import { scrape } from './prometheus.js';
import { renderReport } from './report.js';

const USAGE = `Usage: npm run bench -- [--duration=<s>] [--connections=<n>] [--warmup=<s>]
       [--log-level=<level>] [--no-projector] [--profile] [--no-write]
Loads the Koa ceiling, node-oidc-provider and our two issuance endpoints, one at a time, and
writes docs/benchmarks.md (unless --no-write).`;

const { values } = parseCommandLine(USAGE, {
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '50' },
  warmup: { type: 'string', default: '3' },
  'no-write': { type: 'boolean', default: false },
  'log-level': { type: 'string', default: 'info' },
  profile: { type: 'boolean', default: false },
  'no-projector': { type: 'boolean', default: false },
});
const plan: LoadPlan = {
  durationSeconds: Number(values.duration),
  connections: Number(values.connections),
  warmupSeconds: Number(values.warmup),
};
const AUDIENCE = 'storefront.api.local';
const PEER_CLIENT = {
  client_id: 'bench-client',
  client_secret: 'bench-secret-bench-secret-bench-secret',
};
const root = path.resolve(import.meta.dirname, '..');
const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children: ChildProcess[] = [];

function startProcess(
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): ChildProcess {
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', path.join(root, script)],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (!/WARNING|NOTICE/.test(text)) process.stderr.write(`[${path.basename(script)}] ${text}`);
  });
  child.stdout?.resume(); // the API's access log: consumed (as a log shipper would), not shown
  children.push(child);
  return child;
}

async function waitFor(url: string, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = await fetch(url, init).then(
      (response) => response.status,
      () => 0,
    );
    if (status > 0 && status < 500) return;
    await pause(100);
  }
  throw new Error(`${url} did not come up`);
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'token-authority-bench-'));
const postgres = await startEmbeddedPostgres({
  baseDir: path.join(dataDir, 'postgres'),
  port: await freePortBelow32768(),
  persistent: false,
  logger: pino({ level: 'warn' }),
});
const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
try {
  const settings = (
    await pool.query<{ sc: string; fsync: string; v: string }>(
      `SELECT current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync, version() AS v`,
    )
  ).rows[0]!;
  const [apiPort, ceilingPort, peerPort] = [
    await freePortBelow32768(),
    await freePortBelow32768(),
    await freePortBelow32768(),
  ];
  const serviceEnv = {
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: values['log-level']!,
    TOKEN_AUDIENCES: AUDIENCE,
  };
  progress('starting the service as npm start runs it, and the two references');
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
  const loadGenerator = () => [process.pid];
  const referenceGroups = (target: ChildProcess): CpuGroups => ({
    target: () => [target.pid!],
    'load generator': loadGenerator,
  });
  // The API is npm start's process and its API workers; the projector is its other child.
  const family = async (root: number) => {
    const pids = [root, ...(await descendants(root))];
    const projector: number[] = [];
    const api: number[] = [];
    for (const pid of pids) {
      ((await commandLine(pid)).includes('projector') ? projector : api).push(pid);
    }
    return { api, projector };
  };
  const groupsOf = async (root: number): Promise<CpuGroups> => {
    const { api, projector } = await family(root);
    return { api: () => api, projector: () => projector, 'load generator': loadGenerator };
  };
  const ourGroups = await groupsOf(serviceProcess.pid!);
  // npm start's own process only supervises when there are workers; count the workers.
  let apiProcesses = 0;
  for (const pid of await descendants(serviceProcess.pid!)) {
    if (/\/cli\/api\.[tj]s/.test(await commandLine(pid))) apiProcesses += 1;
  }
  apiProcesses = Math.max(1, apiProcesses);

  const api = `http://127.0.0.1:${apiPort}`;
  const login = await mintDevLoginToken({
    dataDir,
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'bench',
    spaces: ['bench-space'],
    ttlSeconds: 3600,
  });
  const created = await fetch(`${api}/v1/credential`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${login}`,
      'x-service-space-id': 'bench-space',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: 'bench', description: 'benchmark client' }),
  });
  const credential = (await created.json()) as { client_id: string; client_secret: string };
  const tokenBody = JSON.stringify({
    ...credential,
    audience: AUDIENCE,
    grant_type: 'client_credentials',
  });
  const privateToken = (
    (await (
      await fetch(`${api}/v1/credential/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      })
    ).json()) as { access_token: string }
  ).access_token;

  const eventsOf = async (type: string) =>
    Number(
      (
        await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE event_type = $1', [
          type,
        ])
      ).rows[0]!.n,
    );
  const lag: number[] = [];
  const seal: number[] = [];
  const sampleLag = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    const sampler = (async () => {
      while (!done) {
        const { rows } = await pool.query<{ s: number; c: number }>(
          `SELECT coalesce(max(seconds_behind) FILTER (WHERE projection <> 'chain'), 0)::float8 AS s,
                  coalesce(max(seconds_behind) FILTER (WHERE projection = 'chain'), 0)::float8 AS c
           FROM dashboard_projector_lag`,
        );
        lag.push(rows[0]!.s);
        seal.push(rows[0]!.c);
        await pause(200);
      }
    })();
    try {
      return await work;
    } finally {
      done = true;
      await sampler;
    }
  };
  // The API's own count of 200 responses on a route (its Prometheus histogram), so responses are
  // compared with events exactly, including any still in flight when the load generator stopped.
  const served = (route: string, base = api) =>
    scrape(`${base}/metrics`, 'token_authority_http_request_duration_seconds_count', {
      route,
      status: '200',
    });

  const measureReference = async (
    name: string,
    target: ChildProcess,
    request: Record<string, unknown>,
  ): Promise<Measured> => {
    progress(`loading ${name}`);
    let cpuBefore: Record<string, number> = {};
    const result = await load(name, plan, request, async () => {
      cpuBefore = await cpuByGroup(referenceGroups(target));
    });
    const cpuAfter = await cpuByGroup(referenceGroups(target));
    // Postgres idles during a reference run; leave it out of the reference's cost.
    const cpu = cpuMsPer(cpuBefore, cpuAfter, result.ok);
    delete cpu.postgres;
    progress(`${name}: ${Math.round(result.rps)} req/s`);
    return { ...result, cpuMsPerRequest: cpu };
  };
  const measureOurs = async (
    name: string,
    type: string,
    request: Record<string, unknown>,
    groups: CpuGroups = ourGroups,
  ) => {
    progress(`loading ${name}`);
    const url = new URL(request.url as string);
    const route = url.pathname;
    const base = url.origin;
    let servedBefore = 0;
    let before = 0;
    let cpuBefore: Record<string, number> = {};
    const result = await sampleLag(
      load(name, plan, request, async () => {
        await pause(300); // warm-up stragglers
        before = await eventsOf(type);
        servedBefore = await served(route, base);
        cpuBefore = await cpuByGroup(groups);
      }),
    );
    const cpuAfter = await cpuByGroup(groups);
    await pause(300); // let abandoned requests finish
    const events = (await eventsOf(type)) - before;
    const servedOk = (await served(route, base)) - servedBefore;
    progress(`${name}: ${Math.round(result.rps)} req/s`);
    // Warm-up responses committed events too; count only the measured run's.
    return {
      ...result,
      events,
      served: servedOk,
      cpuMsPerRequest: cpuMsPer(cpuBefore, cpuAfter, result.ok),
    };
  };

  progress(
    `each target: ${plan.warmupSeconds}s warm-up + ${plan.durationSeconds}s, ${plan.connections} connections`,
  );
  const ceiling = await measureReference('Koa hello-world JSON POST (ceiling)', ceilingProcess, {
    url: `http://127.0.0.1:${ceilingPort}/echo`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  });
  const peer = await measureReference(
    'node-oidc-provider client_credentials, JWT EdDSA (peer)',
    peerProcess,
    {
      url: `http://127.0.0.1:${peerPort}/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        ...PEER_CLIENT,
        resource: 'https://storefront.api.local/',
      }).toString(),
    },
  );
  const privateRequest = {
    url: `${api}/v1/credential/token`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  };
  const publicRequest = {
    url: `${api}/v1/issue`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${privateToken}`,
      'x-service-space-id': 'bench-space',
    },
    body: JSON.stringify({ customer_id: 'customer-1', segment_id: 'segment-1' }),
  };
  // Warm both of our endpoints before measuring either: the first run of ours otherwise pays
  // for JIT and for the events table's first growth, and whichever went first looked slower.
  progress('warming our endpoints');
  await warmUp(plan, privateRequest);
  await warmUp(plan, publicRequest);
  const privateRun = await measureOurs(
    'ours: POST /v1/credential/token (private)',
    'private-token-issued',
    privateRequest,
  );
  const publicRun = await measureOurs(
    'ours: POST /v1/issue (public)',
    'public-token-issued',
    publicRequest,
  );
  // The same service with the other choice of API processes (1 if the default runs several, else
  // 2), for what workers buy here. Its events are projected by the first service's projector, so
  // that projector's CPU counts here too.
  const otherWorkers = apiProcesses === 1 ? 2 : 1;
  progress(`starting the service with API_WORKERS=${otherWorkers} for comparison`);
  const singlePort = await freePortBelow32768();
  const single = startProcess(
    'src/cli/start.ts',
    {
      ...serviceEnv,
      PORT: String(singlePort),
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
  const singleRun = await measureOurs(
    `ours, API_WORKERS=${otherWorkers}: POST /v1/credential/token (private)`,
    'private-token-issued',
    singleRequest,
    { ...(await groupsOf(single.pid!)), projector: ourGroups.projector! },
  );
  single.kill('SIGTERM');
  const report = renderReport({
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
    privateRun,
    publicRun,
    lag,
    seal,
  });
  console.log(report);
  if (!values['no-write']) {
    await writeFile(path.join(root, 'docs/benchmarks.md'), report);
    progress('written to docs/benchmarks.md');
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await pool.end();
  await pause(500);
  await postgres.stop();
  await rm(dataDir, { recursive: true, force: true });
}
