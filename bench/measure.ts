import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import { cpuByGroup, cpuMsPer, postgresCpuByRole, type CpuGroups } from './cpu.js';
import { load, type LoadPlan, type Measured } from './load.js';
import { scrape } from './prometheus.js';
import { mainThreadTimes } from '../tools/reliability/proc.js';
import { walItems, walPosition } from './wal.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One of our endpoints measured: what the load generator saw, and what the service recorded. */
export type OursMeasured = Measured & {
  readonly events: number;
  readonly served: number;
  /**
   * The API's event loops (their main threads), as fractions of the run's wall time, averaged over
   * the API processes: on a core, and ready to run but waiting for one. Running near 1, the event
   * loop limits throughput; waiting, the cores' other work holds it up.
   */
  readonly eventLoop: { readonly running: number; readonly waiting: number };
};

/**
 * Runs the load of one target and accounts for it: CPU per request of every process group, and
 * for our service the events appended and the 200s it served (exactly, from its own metrics), and
 * the projector's and the sealer's lag sampled during the run (`lag`, `seal`, in seconds).
 */
export function createMeasurer(
  pool: pg.Pool,
  plan: LoadPlan,
  progress: (line: string) => void,
  /** Print each of our runs' costliest statements (Postgres runs with pg_stat_statements). */
  statements = false,
) {
  const lag: number[] = [];
  const seal: number[] = [];
  const eventsOf = async (type: string) =>
    Number(
      (
        await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE event_type = $1', [
          type,
        ])
      ).rows[0]!.n,
    );
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
  const served = (route: string, base: string) =>
    scrape(`${base}/metrics`, 'token_authority_http_request_duration_seconds_count', {
      route,
      status: '200',
    });

  return {
    lag,
    seal,
    /**
     * A reference process (the Koa ceiling, the peers): its CPU and the load generator's; for a
     * durable one (`committed` counts its stored tokens), Postgres's CPU and WAL too, and its
     * committed rows against the 200s it answered (as `events` and `served`).
     */
    async reference(
      name: string,
      target: ChildProcess,
      request: Record<string, unknown>,
      committed?: () => Promise<number>,
    ): Promise<Measured> {
      progress(`loading ${name}`);
      const groups: CpuGroups = {
        target: () => [target.pid!],
        'load generator': () => [process.pid],
      };
      let cpuBefore: Record<string, number> = {};
      let rowsBefore = 0;
      let walBefore = { lsn: '0/0', bytes: 0 };
      let rolesBefore: Record<string, number> = {};
      const result = await load(name, plan, request, async () => {
        if (committed) {
          await pause(300); // warm-up stragglers
          rowsBefore = await committed();
          walBefore = await walPosition(pool);
          rolesBefore = await postgresCpuByRole(pool);
        }
        cpuBefore = await cpuByGroup(groups);
      });
      const cpuAfter = await cpuByGroup(groups);
      const rolesAfter = committed ? await postgresCpuByRole(pool) : {};
      const cpu = cpuMsPer(cpuBefore, cpuAfter, result.ok);
      progress(`${name}: ${Math.round(result.rps)} req/s`);
      // Postgres idles during an in-memory reference's run; leave it out of that one's cost.
      if (!committed) {
        delete cpu.postgres;
        return { ...result, cpuMsPerRequest: cpu };
      }
      const walAfter = await walPosition(pool);
      const wal = walAfter.bytes - walBefore.bytes;
      await pause(300); // let abandoned requests finish
      return {
        ...result,
        events: (await committed()) - rowsBefore,
        served: result.ok,
        cpuMsPerRequest: cpu,
        walBytesPerRequest: wal / Math.max(1, result.ok),
        walItems: await walItems(pool, walBefore.lsn, walAfter.lsn, result.ok),
        postgresMsByRole: cpuMsPer(rolesBefore, rolesAfter, result.ok),
      };
    },
    /** One of our endpoints, whose events of `type` are counted against the 200s it served. */
    async ours(
      name: string,
      type: string,
      request: Record<string, unknown>,
      groups: CpuGroups,
      /** Where the service serves /metrics (METRICS_PORT). */
      metricsBase: string,
      /** The API processes serving requests, whose main threads are the event loops. */
      servers: () => readonly number[],
    ): Promise<OursMeasured> {
      progress(`loading ${name}`);
      const url = new URL(request.url as string);
      let servedBefore = 0;
      let before = 0;
      let cpuBefore: Record<string, number> = {};
      let loopBefore = { running: 0, waiting: 0 };
      let startedAt = 0;
      let walBefore = { lsn: '0/0', bytes: 0 };
      let rolesBefore: Record<string, number> = {};
      const result = await sampleLag(
        load(name, plan, request, async () => {
          await pause(300); // warm-up stragglers
          before = await eventsOf(type);
          servedBefore = await served(url.pathname, metricsBase);
          cpuBefore = await cpuByGroup(groups);
          walBefore = await walPosition(pool);
          rolesBefore = await postgresCpuByRole(pool);
          loopBefore = await mainThreadTimes(servers());
          startedAt = performance.now();
          if (statements) await pool.query('SELECT pg_stat_statements_reset()');
        }),
      );
      const cpuAfter = await cpuByGroup(groups);
      const walAfter = await walPosition(pool);
      const wal = walAfter.bytes - walBefore.bytes;
      const rolesAfter = await postgresCpuByRole(pool);
      const loopAfter = await mainThreadTimes(servers());
      const perWall =
        ((performance.now() - startedAt) / 1000) * Math.max(1, servers().length) || 1e-9;
      const eventLoop = {
        running: (loopAfter.running - loopBefore.running) / perWall,
        waiting: (loopAfter.waiting - loopBefore.waiting) / perWall,
      };
      if (statements) await printStatements(pool, result.ok, progress);
      await pause(300); // let abandoned requests finish
      const events = (await eventsOf(type)) - before;
      const servedOk = (await served(url.pathname, metricsBase)) - servedBefore;
      progress(`${name}: ${Math.round(result.rps)} req/s`);
      // Warm-up responses committed events too; count only the measured run's.
      return {
        ...result,
        events,
        served: servedOk,
        eventLoop,
        cpuMsPerRequest: cpuMsPer(cpuBefore, cpuAfter, result.ok),
        walBytesPerRequest: wal / Math.max(1, result.ok),
        walItems: await walItems(pool, walBefore.lsn, walAfter.lsn, result.ok),
        postgresMsByRole: cpuMsPer(rolesBefore, rolesAfter, result.ok),
      };
    },
  };
}

/** The statements Postgres spent most time on since the reset, in ms per successful request. */
async function printStatements(pool: pg.Pool, requests: number, progress: (line: string) => void) {
  const { rows } = await pool.query<{ ms: number; calls: string; rows: string; query: string }>(
    `SELECT (total_exec_time + total_plan_time)::float8 AS ms, calls, rows,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query
     FROM pg_stat_statements ORDER BY 1 DESC LIMIT 15`,
  );
  progress('statements (ms per request · calls per request · rows per call · query):');
  for (const row of rows) {
    const calls = Number(row.calls);
    progress(
      `  ${(row.ms / requests).toFixed(4)} · ${(calls / requests).toFixed(3)} · ${(Number(row.rows) / Math.max(calls, 1)).toFixed(1)} · ${row.query}`,
    );
  }
}
