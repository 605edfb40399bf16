/**
 * `npm run soak -- --minutes=N`: holds a steady load on the whole service (API, projector,
 * Postgres as separate processes) and reports, per process, memory (PSS) at the start (after a
 * warm-up minute), at the middle and at the end, tokens served against events appended, and
 * projector lag. Prints a Markdown report; exit 0 when served = appended, no 5xx, and the log
 * verifies.
 */
import { descendants, proportionalBytes } from '../reliability/proc.js';
import { startHarness, type Harness } from '../reliability/harness.js';
import { createClients, startLoad } from '../reliability/load.js';
import { judgeLog, waitForProjector } from '../reliability/oracle.js';
import { parseCommandLine } from '#settings/command-line.js';

const { values } = parseCommandLine(
  `Usage: npm run soak -- [--minutes=<n>] [--concurrency=<n>]
Steady load for n minutes (default 10); reports memory per process, served = appended, lag.`,
  {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
  },
);
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
const progress = (message: string) => process.stderr.write(`[soak] ${message}\n`);

interface Sample {
  readonly atSeconds: number;
  readonly mib: Readonly<Record<'api' | 'projector' | 'postgres', number>>;
  readonly lagSeconds: number;
  readonly served: number;
}

async function sample(harness: Harness, startedAt: number, served: number): Promise<Sample> {
  const mib = async (pids: readonly number[]) => {
    let bytes = 0;
    for (const pid of pids) bytes += await proportionalBytes(pid);
    return Math.round((bytes / 2 ** 20) * 10) / 10;
  };
  const postmaster = harness.pid('postgres');
  const postgresPids = postmaster ? [postmaster, ...(await descendants(postmaster))] : [];
  const { rows } = await harness.pool.query<{ s: number }>(
    'SELECT coalesce(max(seconds_behind), 0)::float8 AS s FROM dashboard_projector_lag',
  );
  return {
    atSeconds: Math.round((Date.now() - startedAt) / 1000),
    mib: {
      api: await mib([harness.pid('api')!]),
      projector: await mib([harness.pid('projector')!]),
      postgres: await mib(postgresPids),
    },
    lagSeconds: rows[0]!.s,
    served,
  };
}

const harness = await startHarness();
let exitCode = 1;
try {
  const clients = await createClients(
    harness.apiUrl,
    await harness.loginToken('soak-space'),
    'soak-space',
    4,
  );
  const startedAt = Date.now();
  const load = startLoad(harness.apiUrl, clients, concurrency);
  const samples: Sample[] = [];
  const sampleEveryMs = Math.min(30_000, (minutes * 60_000) / 20);
  while (Date.now() - startedAt < minutes * 60_000) {
    await new Promise((resolve) => setTimeout(resolve, sampleEveryMs));
    const taken = await sample(harness, startedAt, load.okCount());
    samples.push(taken);
    progress(
      `${taken.atSeconds}s: ${JSON.stringify(taken.mib)} MiB, lag ${taken.lagSeconds.toFixed(2)}s, ${taken.served} tokens`,
    );
  }
  const report = await load.stop();
  const caughtUp = await waitForProjector(harness.pool, 60_000);
  const { rows } = await harness.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE event_type IN ('private-token-issued', 'public-token-issued')`,
  );
  const appended = rows[0]!.n;
  const verdict = await judgeLog(harness.pool, report.receivedJtis, {
    publicKey: harness.auditPublicKey,
  });
  const served = report.receivedJtis.length;
  const lags = samples.map((s) => s.lagSeconds).sort((a, b) => a - b);
  const warm = samples.find((s) => s.atSeconds >= Math.min(60, (minutes * 60) / 4)) ?? samples[0]!;
  const middle = samples[Math.floor(samples.length / 2)]!;
  const end = samples.at(-1)!;
  const ok = caughtUp && verdict.ok && served === appended && report.serverErrors.length === 0;
  const row = (role: 'api' | 'projector' | 'postgres') =>
    `| ${role} | ${warm.mib[role]} | ${middle.mib[role]} | ${end.mib[role]} | ${(end.mib[role] - middle.mib[role]).toFixed(1)} |`;
  console.log(
    [
      `### Soak: ${minutes} min, ${concurrency} concurrent clients (${new Date().toISOString().slice(0, 10)})`,
      '',
      `Requests ${report.requests}; tokens served ${served}; token events appended ${appended} (${served === appended ? 'equal' : '**not equal**'});`,
      `statuses ${JSON.stringify(report.byStatus)}; slowest answer ${report.maxLatencyMs} ms;`,
      `projector lag p50 ${(lags[Math.floor(lags.length / 2)] ?? 0).toFixed(2)} s, max ${(lags.at(-1) ?? 0).toFixed(2)} s;`,
      `log verified: ${verdict.ok ? 'yes' : '**no**'} (views = recomputation, the log tree recomputed from the events holds to every signed head, no token without its event).`,
      '',
      `| process | PSS MiB at ${warm.atSeconds}s | at ${middle.atSeconds}s | at ${end.atSeconds}s | change over the second half |`,
      '| --- | ---: | ---: | ---: | ---: |',
      row('api'),
      row('projector'),
      row('postgres'),
      '',
      `Samples (s: api/projector/postgres MiB): ${samples.map((s) => `${s.atSeconds}: ${s.mib.api}/${s.mib.projector}/${s.mib.postgres}`).join('; ')}`,
      '',
    ].join('\n'),
  );
  exitCode = ok ? 0 : 1;
} finally {
  await harness.stop();
}
process.exit(exitCode);
