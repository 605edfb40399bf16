import { cpus, totalmem } from 'node:os';
import type { Measured } from './load.js';
import type { OursMeasured } from './measure.js';

/** Everything one bench run measured, for {@link renderReport}. */
export interface BenchResults {
  readonly options: {
    readonly durationSeconds: number;
    readonly connections: number;
    readonly warmupSeconds: number;
    readonly logLevel: string;
  };
  readonly postgres: {
    readonly version: string;
    readonly synchronousCommit: string;
    readonly fsync: string;
  };
  readonly ceiling: Measured;
  readonly peer: Measured;
  /** The durable peer's two rounds, before and after ours (issue 69). */
  readonly durable: readonly [Measured, Measured];
  readonly privateRun: OursMeasured;
  readonly publicRun: OursMeasured;
  /** How many API processes served privateRun and publicRun (npm start's API_WORKERS). */
  readonly apiProcesses: number;
  /** privateRun's endpoint served with API_WORKERS=otherWorkers, for comparison. */
  readonly singleRun: OursMeasured;
  readonly otherWorkers: number;
  /** Projector lag samples (seconds) taken during our runs. */
  readonly lag: readonly number[];
  /** Commit-to-seal window samples (seconds) of the log tree during our runs (its lag row: `chain`). */
  readonly seal: readonly number[];
  /** Database size over the tokens in it, after the runs (issue 20's measure). */
  readonly storage: { readonly bytes: number; readonly tokens: number };
  /** --sinks: what the live webhook sink received over the whole run; the other sink was dead. */
  readonly sinks?: { readonly events: number; readonly refused: number; readonly deadPort: number };
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};
/** CPU per request over every process group of a run, in ms. */
export const total = (cpu: Readonly<Record<string, number>> | undefined) =>
  Object.values(cpu ?? {}).reduce((a, b) => a + b, 0);

/** The durable peer's faster round: ours divided by it is the lower of the two ratios. */
export const fastestOf = (durable: readonly [Measured, Measured]): Measured =>
  durable[0].rps >= durable[1].rps ? durable[0] : durable[1];

/**
 * docs/benchmarks.md, every sentence computed from this run: the figures, the ratios, the targets
 * met or not, and where the CPU went.
 */
export function renderReport(results: BenchResults): string {
  const { ceiling, peer, durable, privateRun, publicRun, singleRun, options } = results;
  const fastest = fastestOf(durable);
  const durableKept = durable.every((r) => r.events === r.served);
  const cores = cpus().length;
  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  const ms = (n: number | undefined) => (n ?? 0).toFixed(3);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;
  const check = (pass: boolean) => (pass ? 'met' : '**not met**');
  const bound = (r: Measured) => (cores * 1000) / Math.max(total(r.cpuMsPerRequest), 1e-9);
  const eventsMatch = (r: Measured) => r.events === r.served;
  const lagP99 = percentile(results.lag, 0.99);
  const sealP99 = percentile(results.seal, 0.99);
  // The peer's own process only: the load generator is not part of what a token costs it.
  const peerCpu = peer.cpuMsPerRequest?.target ?? 0;
  const apiShare = (r: Measured) =>
    (r.cpuMsPerRequest?.api ?? 0) / Math.max(total(r.cpuMsPerRequest), 1e-9);
  const durableShare = (r: Measured) =>
    ((r.cpuMsPerRequest?.postgres ?? 0) + (r.cpuMsPerRequest?.projector ?? 0)) /
    Math.max(total(r.cpuMsPerRequest), 1e-9);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const ours = [privateRun, publicRun];

  return [
    '# Benchmarks',
    '',
    `Run of \`npm run bench -- --duration ${options.durationSeconds} --connections ${options.connections}${results.sinks ? ' --sinks' : ''}\` on ${new Date().toISOString().slice(0, 10)}.`,
    ...(results.sinks
      ? [
          `Audit delivery ran throughout: two operator sinks (AUDIT_SINKS), a webhook receiver in a process of the bench's own answering 200 on receipt (it received ${results.sinks.events.toLocaleString('en-US')} events and, verifying them after the runs, refused ${results.sinks.refused} signatures) and a dead one (127.0.0.1:${results.sinks.deadPort}, nothing listening); the deliverer's CPU is counted with the projector's.`,
        ]
      : []),
    `Machine: ${cores} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    `Postgres: embedded ${results.postgres.version}, synchronous_commit=${results.postgres.synchronousCommit}, fsync=${results.postgres.fsync}.`,
    `Our service runs as \`npm start\` runs it by default (API_WORKERS=${results.apiProcesses}, the projector, revocation checks, rate limits and checkpoints on, default pool sizes), on an embedded Postgres the bench starts.`,
    `Every target runs in its own processes on loopback; autocannon (in the bench process) drives ${options.connections} connections,`,
    `${options.warmupSeconds}s warm-up, then a fixed number of requests sized to last about ${options.durationSeconds}s (so every response is counted), one target at a time. The API logs at LOG_LEVEL=${options.logLevel}.`,
    '',
    '| target | req/s | p50 ms | p99 ms | max ms | non-2xx | errors | events appended |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[ceiling, peer, ...durable, privateRun, publicRun, singleRun].map(
      (r) =>
        `| ${r.name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.max} | ${r.non2xx} | ${r.errors} | ${r.events === undefined ? '—' : `${r.events} (200s served: ${r.served})`} |`,
    ),
    '',
    '| ratio | value | target | |',
    '| --- | ---: | ---: | --- |',
    `| private / peer | ${ratio(privateRun.rps, peer.rps)} | ≥ 1.25× | ${check(privateRun.rps >= 1.25 * peer.rps)} |`,
    `| public / peer | ${ratio(publicRun.rps, peer.rps)} | ≥ 1.25× | ${check(publicRun.rps >= 1.25 * peer.rps)} |`,
    `| private / durable peer (lower of its two rounds) | ${ratio(privateRun.rps, fastest.rps)} | ≥ 1.25× | ${check(privateRun.rps >= 1.25 * fastest.rps)} |`,
    `| public / durable peer (lower of its two rounds) | ${ratio(publicRun.rps, fastest.rps)} | ≥ 1.25× | ${check(publicRun.rps >= 1.25 * fastest.rps)} |`,
    `| the durable peer's committed tokens = its 200s, each round | ${durableKept ? 'yes' : 'no'} | yes | ${check(durableKept)} |`,
    `| private / ceiling | ${pct(privateRun.rps, ceiling.rps)} | | |`,
    `| private, API_WORKERS=${results.apiProcesses} (default) / API_WORKERS=${results.otherWorkers} | ${ratio(privateRun.rps, singleRun.rps)} | | |`,
    `| private achieved / CPU bound | ${pct(privateRun.rps, bound(privateRun))} | ≥ 90% | ${check(privateRun.rps >= 0.9 * bound(privateRun))} |`,
    `| public achieved / CPU bound | ${pct(publicRun.rps, bound(publicRun))} | ≥ 90% | ${check(publicRun.rps >= 0.9 * bound(publicRun))} |`,
    `| API event loop on a core, private / public (share of wall time) | ${pct(privateRun.eventLoop.running, 1)} / ${pct(publicRun.eventLoop.running, 1)} | | |`,
    `| API event loop ready but waiting for a core, private / public | ${pct(privateRun.eventLoop.waiting, 1)} / ${pct(publicRun.eventLoop.waiting, 1)} | | |`,
    `| private API CPU / peer CPU per token | ${ratio(privateRun.cpuMsPerRequest?.api ?? 0, peerCpu)} | ≤ 0.5× | ${check((privateRun.cpuMsPerRequest?.api ?? 0) <= 0.5 * peerCpu)} |`,
    `| public API CPU / peer CPU per token | ${ratio(publicRun.cpuMsPerRequest?.api ?? 0, peerCpu)} | ≤ 0.5× | ${check((publicRun.cpuMsPerRequest?.api ?? 0) <= 0.5 * peerCpu)} |`,
    `| private p99 | ${privateRun.p99} ms | ≤ 25 ms | ${check(privateRun.p99 <= 25)} |`,
    `| public p99 | ${publicRun.p99} ms | ≤ 25 ms | ${check(publicRun.p99 <= 25)} |`,
    `| projector lag p99 (max) during our runs | ${lagP99.toFixed(2)} s (${percentile(results.lag, 1).toFixed(2)} s) | < 1 s | ${check(lagP99 < 1)} |`,
    `| commit-to-seal window of the log tree, p99 (max) | ${sealP99.toFixed(2)} s (${percentile(results.seal, 1).toFixed(2)} s) | | |`,
    `| non-2xx on our endpoints | ${privateRun.non2xx + publicRun.non2xx} | 0 | ${check(privateRun.non2xx + publicRun.non2xx === 0)} |`,
    `| events appended = 200 responses served | ${ours.every(eventsMatch) ? 'yes' : 'no'} | yes | ${check(ours.every(eventsMatch))} |`,
    `| database bytes per token (every table, index and TOAST, after VACUUM; ${results.storage.tokens.toLocaleString('en-US')} tokens) | ${Math.round(results.storage.bytes / Math.max(1, results.storage.tokens)).toLocaleString('en-US')} | ≤ 600 | ${check(results.storage.bytes / Math.max(1, results.storage.tokens) <= 600)} |`,
    '',
    'Where the CPU goes, per successful request, in milliseconds of CPU time (Linux /proc):',
    '',
    `| run | target process | projector | Postgres (all backends) | load generator | total | req/s bound on ${cores} cores | WAL bytes per token |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[ceiling, peer, ...durable, privateRun, publicRun, singleRun].map((r) => {
      const c = r.cpuMsPerRequest ?? {};
      const wal = r.walBytesPerRequest === undefined ? '—' : fmt(r.walBytesPerRequest);
      return `| ${r.name} | ${ms(c.api ?? c.target)} | ${ms(c.projector)} | ${ms(c.postgres)} | ${ms(c['load generator'])} | ${ms(total(c))} | ${fmt(bound(r))} | ${wal} |`;
    }),
    '',
    'Postgres by role, ms of CPU per token (client backends by application_name, the rest by backend type; the largest first):',
    '',
    ...[...durable, privateRun, publicRun].map((r) => {
      const roles = Object.entries(r.postgresMsByRole ?? {})
        .filter(([, value]) => value >= 0.0005)
        .sort(([, a], [, b]) => b - a)
        .map(([role, value]) => `${role} ${ms(value)}`);
      return `- ${r.name}: ${roles.join(', ') || '—'}`;
    }),
    '',
    'WAL per token by what it was written for (pg_walinspect: block data and full-page images by relation; whole records by resource manager), bytes, the largest first:',
    '',
    ...[...durable, privateRun, publicRun].map((r) => {
      const items = (list: ReadonlyArray<readonly [string, number]> | undefined) =>
        (list ?? []).map(([item, bytes]) => `${item} ${fmt(bytes)}`).join(', ') || '—';
      return `- ${r.name}: ${items(r.walItems?.relations)}; by manager: ${items(r.walItems?.managers)}`;
    }),
    '',
    '## Reading it',
    '',
    `- The machine has ${cores} cores and everything shares them: the API, Postgres, the projector and`,
    '  the load generator. The bound column divides the cores by the CPU one request costs across all',
    `  of them. Ours reached ${pct(privateRun.rps, bound(privateRun))} (private) and ${pct(publicRun.rps, bound(publicRun))} (public) of`,
    '  their bound; what is left is time some core spent idle while requests waited.',
    `- The API's event loop (its main thread, where it also signs) ran on a core`,
    `  ${pct(privateRun.eventLoop.running, 1)} (private) and ${pct(publicRun.eventLoop.running, 1)} (public) of the run's wall time, and was ready to run but waiting`,
    `  for a core ${pct(privateRun.eventLoop.waiting, 1)} and ${pct(publicRun.eventLoop.waiting, 1)} (Linux schedstat). Every request passes through that one thread:`,
    '  the time it waits for a core, taken by Postgres, the projector or the load generator, is time',
    '  no request moves.',
    `- The API processes (workers and npm start's supervising process) are ${pct(apiShare(privateRun), 1)} (private) and ${pct(apiShare(publicRun), 1)} (public) of our CPU per`,
    `  request; Postgres and the projector, the durable work the peer does not do (the event, the audit`,
    `  row, the rate buckets, the Merkle trees), are ${pct(durableShare(privateRun), 1)} and ${pct(durableShare(publicRun), 1)}.`,
    `- The peer (node-oidc-provider) spends ${ms(peer.cpuMsPerRequest?.target)} ms of CPU in its own process per token and writes`,
    '  nothing durable. The durable peer is node-oidc-provider as deployments run it for revocable',
    '  tokens: opaque, one row per token upserted into Postgres and committed before the answer',
    `  (bench/peer-postgres-adapter.ts); it spent ${ms(fastest.cpuMsPerRequest?.target)} ms in its process and ${ms(fastest.cpuMsPerRequest?.postgres)} ms in Postgres per token, and wrote ${fmt(fastest.walBytesPerRequest ?? 0)} bytes of WAL.`,
    `- The floor under our API's cost: Koa's hello-world JSON POST alone costs ${ms(ceiling.cpuMsPerRequest?.target)} ms of CPU per request`,
    `  here (HTTP parsing, Koa, a JSON body), ${pct((ceiling.cpuMsPerRequest?.target ?? 0) / Math.max(privateRun.cpuMsPerRequest?.api ?? 1e-9, 1e-9), 1)} of our private API's ${ms(privateRun.cpuMsPerRequest?.api)} ms and ${pct((ceiling.cpuMsPerRequest?.target ?? 0) / Math.max(peerCpu, 1e-9), 1)} of the peer's ${ms(peerCpu)} ms;`,
    '  the ≤ 0.5× target leaves less than that floor for signing, authentication, the event and the log line.',
    `- With API_WORKERS=${results.otherWorkers} the private endpoint served ${fmt(singleRun.rps)} req/s at ${ms(singleRun.cpuMsPerRequest?.api)} ms of API CPU per token;`,
    `  with the default ${results.apiProcesses}, ${fmt(privateRun.rps)} req/s at ${ms(privateRun.cpuMsPerRequest?.api)} ms.`,
    `- Latency at ${options.connections} connections follows from throughput (Little's law: p50 ≈ connections / req/s).`,
    '- Absolute figures drift between runs on a shared virtual machine; compare the ratios within one run.',
    '',
    'Rerun: `npm run bench` (options: `--duration <s>`, `--connections <n>`, `--warmup <s>`,',
    '`--log-level <level>`, `--no-projector`, `--sinks` for audit delivery to a live and a dead sink throughout, `--profile` for a CPU profile of the API in',
    '`.data/profiles`, `--statements` for the costliest Postgres statements of each of our runs, per',
    'request, from pg_stat_statements, `--no-write` to leave this file alone). The largest gains and what they cost: [performance.md](performance.md).',
    '',
  ].join('\n');
}
