/**
 * `npm run bench [-- --duration 10 --connections 50 --no-write]`
 *
 * Starts a real Postgres (embedded, synchronous_commit on), the API and the projector as their own
 * processes, and two references in the same run: the Koa hello-world ceiling and node-oidc-provider.
 * Loads each on loopback with autocannon and prints one table with ratios; writes it to
 * docs/benchmarks.md unless --no-write.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { pino } from 'pino';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { mintDevLoginToken } from '../src/tokens/login-tokens.js';
import { freePortBelow32768 } from '../test/support/postgres-source.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'info' },
    profile: { type: 'boolean', default: false },
    'no-projector': { type: 'boolean', default: false },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const AUDIENCE = 'storefront.api.local';
const PEER_CLIENT = {
  client_id: 'bench-client',
  client_secret: 'bench-secret-bench-secret-bench-secret',
};
const root = path.resolve(import.meta.dirname, '..');

interface Measured {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly events?: number;
  /** 200 responses the API itself counted (the load generator may abandon the last few). */
  readonly served?: number;
  readonly cpuMsPerRequest?: Record<string, number>;
}

const children: ChildProcess[] = [];

/**
 * CPU seconds used so far by each group of processes (Linux /proc; empty elsewhere). Shows where
 * the two cores go: the API, the projector, Postgres, and the load generator itself.
 */
async function cpuByGroup(groups: Record<string, () => number[]>): Promise<Record<string, number>> {
  const { readFile, readdir } = await import('node:fs/promises');
  const seconds = async (pid: number) => {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  };
  const result: Record<string, number> = {};
  for (const [name, pids] of Object.entries(groups)) {
    let total = 0;
    for (const pid of pids()) total += await seconds(pid);
    result[name] = total;
  }
  const postgresPids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === 'postgres') postgresPids.push(Number(entry));
  }
  let pgTotal = 0;
  for (const pid of postgresPids) pgTotal += await seconds(pid);
  result.postgres = pgTotal;
  return result;
}
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
    try {
      const response = await fetch(url, init);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

/**
 * Warm-up for `warmup` seconds, then a measured run of a fixed number of requests sized from the
 * warm-up rate to last about `duration` seconds. A fixed amount (not a time limit) means every
 * request sent is answered and counted, so responses can be compared with events exactly.
 */
async function load(
  name: string,
  options: Record<string, unknown>,
  before?: () => Promise<void>,
): Promise<Measured> {
  const warm = await autocannon({ ...options, connections, duration: warmup });
  await before?.();
  const amount = Math.max(connections * 10, Math.round(warm.requests.average * duration));
  const started = process.hrtime.bigint();
  const result = await autocannon({ ...options, connections, amount });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    name,
    rps: result['2xx'] / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
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
  const settings = await pool.query(
    `SELECT current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync, version() AS v`,
  );
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
    DATABASE_POOL_SIZE: '20',
  };
  // --profile: a CPU profile of the API process lands in .data/profiles (open it in Chrome DevTools).
  const apiProcess = startProcess(
    'src/cli/api.ts',
    { ...serviceEnv, PORT: String(apiPort), HOST: '127.0.0.1' },
    values.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, '.data/profiles')}`] : [],
  );
  await waitFor(`http://127.0.0.1:${apiPort}/healthz`);
  const projectorProcess = values['no-projector']
    ? undefined
    : startProcess('src/cli/projector.ts', { ...serviceEnv, LOG_LEVEL: 'warn' });
  const groups = {
    api: () => [apiProcess.pid!],
    projector: () => (projectorProcess ? [projectorProcess.pid!] : []),
    'load generator': () => [process.pid],
  };
  startProcess('bench/koa-ceiling.ts', { PORT: String(ceilingPort) });
  startProcess('bench/peer-oidc-provider.ts', { PORT: String(peerPort) });
  await waitFor(`http://127.0.0.1:${ceilingPort}/echo`, { method: 'POST' });
  await waitFor(`http://127.0.0.1:${peerPort}/.well-known/openid-configuration`);

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
    (
      await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE event_type = $1', [
        type,
      ])
    ).rows[0]!.n;
  const lagSamples: number[] = [];
  const sealSamples: number[] = [];
  const sampleLag = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    const sampler = (async () => {
      while (!done) {
        const { rows } = await pool.query<{ s: number; c: number }>(
          `SELECT coalesce(max(seconds_behind) FILTER (WHERE projection <> 'chain'), 0)::float8 AS s,
                  coalesce(max(seconds_behind) FILTER (WHERE projection = 'chain'), 0)::float8 AS c
           FROM dashboard_projector_lag`,
        );
        lagSamples.push(rows[0]!.s);
        sealSamples.push(rows[0]!.c);
        await new Promise((resolve) => setTimeout(resolve, 200));
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
  const served = async (route: string) => {
    const text = await (await fetch(`${api}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('token_authority_http_request_duration_seconds_count') &&
          l.includes(`route="${route}"`) &&
          l.includes('status="200"'),
      );
    return Number(line?.split(' ').at(-1) ?? 0);
  };
  const measureOurs = async (name: string, type: string, options: Record<string, unknown>) => {
    const route = new URL(options.url as string).pathname;
    let servedBefore = 0;
    let before = 0;
    let cpuBefore: Record<string, number> = {};
    const result = await sampleLag(
      load(name, options, async () => {
        await new Promise((resolve) => setTimeout(resolve, 300)); // warm-up stragglers
        before = Number(await eventsOf(type));
        servedBefore = await served(route);
        cpuBefore = await cpuByGroup(groups);
      }),
    );
    const cpuAfter = await cpuByGroup(groups);
    await new Promise((resolve) => setTimeout(resolve, 300)); // let abandoned requests finish
    const after = Number(await eventsOf(type));
    const servedOk = (await served(route)) - servedBefore;
    const cpuMsPerRequest = Object.fromEntries(
      Object.keys(cpuAfter).map((key) => [
        key,
        ((cpuAfter[key]! - (cpuBefore[key] ?? 0)) * 1000) / result.ok,
      ]),
    );
    // Warm-up responses committed events too; count only the measured run's.
    return { ...result, events: after - before, served: servedOk, cpuMsPerRequest };
  };

  console.log(
    `Loading each target for ${warmup}s warm-up + ${duration}s, ${connections} connections…`,
  );
  const ceiling = await load('Koa hello-world JSON POST (ceiling)', {
    url: `http://127.0.0.1:${ceilingPort}/echo`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  });
  const peer = await load('node-oidc-provider client_credentials, JWT EdDSA (peer)', {
    url: `http://127.0.0.1:${peerPort}/token`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      ...PEER_CLIENT,
      resource: 'https://storefront.api.local/',
    }).toString(),
  });
  const privateOptions = {
    url: `${api}/v1/credential/token`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  };
  const publicOptions = {
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
  await autocannon({ ...privateOptions, connections, duration: warmup });
  await autocannon({ ...publicOptions, connections, duration: warmup });
  const privateRun = await measureOurs(
    'ours: POST /v1/credential/token (private)',
    'private-token-issued',
    privateOptions,
  );
  const publicRun = await measureOurs(
    'ours: POST /v1/issue (public)',
    'public-token-issued',
    publicOptions,
  );
  const report = renderReport(
    [ceiling, peer, privateRun, publicRun],
    { ceiling, peer, privateRun, publicRun },
    lagSamples,
    sealSamples,
    settings.rows[0] as { sc: string; fsync: string; v: string },
  );
  console.log(report);
  if (!values['no-write']) {
    await writeFile(path.join(root, 'docs/benchmarks.md'), report);
    console.log('written to docs/benchmarks.md');
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await pool.end();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await postgres.stop();
  await rm(dataDir, { recursive: true, force: true });
}

function renderReport(
  rows: Measured[],
  named: { ceiling: Measured; peer: Measured; privateRun: Measured; publicRun: Measured },
  lag: number[],
  seal: number[],
  pgInfo: { sc: string; fsync: string; v: string },
): string {
  const sorted = [...lag].sort((a, b) => a - b);
  const lagP99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  const lagMax = sorted.at(-1) ?? 0;
  const sealSorted = [...seal].sort((a, b) => a - b);
  const sealP99 =
    sealSorted[Math.min(sealSorted.length - 1, Math.floor(sealSorted.length * 0.99))] ?? 0;
  const sealMax = sealSorted.at(-1) ?? 0;
  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;
  const check = (pass: boolean) => (pass ? 'met' : '**not met**');
  const cpu = cpus();
  const lines = [
    '# Benchmarks',
    '',
    `Run of \`npm run bench -- --duration ${duration} --connections ${connections}\` on ${new Date().toISOString().slice(0, 10)}.`,
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    `Postgres: embedded ${pgInfo.v.split(' ').slice(0, 2).join(' ')}, synchronous_commit=${pgInfo.sc}, fsync=${pgInfo.fsync}.`,
    `Every target runs in its own process on loopback; autocannon (in the bench process) drives ${connections} connections,`,
    `${warmup}s warm-up, then a fixed number of requests sized to last about ${duration}s (so every response is counted), one target at a time. The API logs at LOG_LEVEL=${values['log-level']} as it would in production.`,
    '',
    '| target | req/s | p50 ms | p99 ms | max ms | non-2xx | errors | events appended |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.max} | ${r.non2xx} | ${r.errors} | ${r.events === undefined ? '—' : `${r.events} (200s served: ${r.served})`} |`,
    ),
    '',
    '| ratio | value | target | |',
    '| --- | ---: | ---: | --- |',
    `| private / peer | ${ratio(named.privateRun.rps, named.peer.rps)} | ≥ 2× | ${check(named.privateRun.rps >= 2 * named.peer.rps)} |`,
    `| private / ceiling | ${pct(named.privateRun.rps, named.ceiling.rps)} | ≥ 35% | ${check(named.privateRun.rps >= 0.35 * named.ceiling.rps)} |`,
    `| private p99 | ${named.privateRun.p99} ms | ≤ 25 ms | ${check(named.privateRun.p99 <= 25)} |`,
    `| public / private | ${ratio(named.publicRun.rps, named.privateRun.rps)} | ≥ 1× | ${check(named.publicRun.rps >= named.privateRun.rps)} |`,
    `| public / peer | ${ratio(named.publicRun.rps, named.peer.rps)} | | |`,
    `| public / ceiling | ${pct(named.publicRun.rps, named.ceiling.rps)} | | |`,
    `| projector lag p99 (max) during our runs | ${lagP99.toFixed(2)} s (${lagMax.toFixed(2)} s) | < 1 s | ${check(lagP99 < 1)} |`,
    `| commit-to-seal window of the hash chain, p99 (max) | ${sealP99.toFixed(2)} s (${sealMax.toFixed(2)} s) | | |`,
    `| non-2xx on our endpoints | ${named.privateRun.non2xx + named.publicRun.non2xx} | 0 | ${check(named.privateRun.non2xx + named.publicRun.non2xx === 0)} |`,
    `| events appended = 200 responses served | ${named.privateRun.events === named.privateRun.served && named.publicRun.events === named.publicRun.served ? 'yes' : 'no'} | yes | ${check(named.privateRun.events === named.privateRun.served && named.publicRun.events === named.publicRun.served)} |`,
    '',
    'Where the CPU goes, per successful request, in milliseconds of CPU time (Linux /proc):',
    '',
    '| run | API | projector | Postgres (all backends) | load generator | total | rps bound on 2 cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[named.privateRun, named.publicRun].map((r) => {
      const c = r.cpuMsPerRequest ?? {};
      const total = Object.values(c).reduce((a, b) => a + b, 0);
      const f = (n: number | undefined) => (n ?? 0).toFixed(3);
      return `| ${r.name} | ${f(c.api)} | ${f(c.projector)} | ${f(c.postgres)} | ${f(c['load generator'])} | ${f(total)} | ${fmt(2000 / total)} |`;
    }),
    '',
    '## Reading it',
    '',
    '- The machine has two cores and everything shares them: the API, Postgres, the projector and the',
    '  load generator. The last column divides the two cores by the CPU one request costs across all',
    '  of them: the throughput no tuning of a single process can pass here. Our runs sit close to it,',
    '  so they are CPU-bound, not waiting on locks or on disk flushes (group commit makes one WAL',
    '  flush serve a whole batch of issuances).',
    '- The peer signs a JWT and answers; it writes nothing durable, keeps no audit trail and builds no',
    '  hash chain. Each of our tokens is an event committed with synchronous_commit on before the',
    '  response, then projected into the audit and rate views and sealed into the hash chain: the',
    '  Postgres and projector columns are that work, roughly a third of the total.',
    '- In the API itself the largest single costs are the Ed25519 signature (node:crypto, about a',
    '  sixth of its CPU) and writing the HTTP response; /v1/issue skips the signature check of a',
    '  private token it verified before (memo keyed by the exact token, expiry and key rechecked).',
    "- Latency at 50 connections follows from throughput (Little's law: p50 ≈ 50 / req/s); the p99",
    '  target of 25 ms needs about 2,000 req/s of headroom this machine does not have while it also',
    '  runs Postgres and the load generator.',
    '',
    '- This is a shared virtual machine: absolute figures drift between runs (the ceiling alone has',
    '  measured anywhere from 5,700 to 11,900 req/s on it), so compare the ratios within one run.',
    '- Tried and dropped: two API processes (Node cluster) sharing the port gave no gain here and',
    '  cost more CPU per request, because the two cores are already saturated by Postgres, the',
    '  projector and the load generator; scale the API out with replicas on their own machines.',
    '',
    'Rerun: `npm run bench` (options: `--duration <s>`, `--connections <n>`, `--warmup <s>`,',
    '`--log-level <level>`, `--no-projector`, `--profile` for a CPU profile of the API in',
    '`.data/profiles`, `--no-write` to leave this file alone).',
    '',
  ];
  return lines.join('\n');
}
