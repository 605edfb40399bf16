import autocannon from 'autocannon';
import type { WalItems } from './wal.js';

/** One load run against one target. */
export interface Measured {
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
  /** Milliseconds of CPU per successful request, by process group. */
  readonly cpuMsPerRequest?: Readonly<Record<string, number>>;
  /** Bytes of WAL Postgres wrote per successful request (every database of the server). */
  readonly walBytesPerRequest?: number;
  /** That WAL by relation and by resource manager, bytes per request (bench/wal.ts). */
  readonly walItems?: WalItems;
  /** Milliseconds of Postgres CPU per successful request, by role (bench/cpu.ts postgresCpuByRole). */
  readonly postgresMsByRole?: Readonly<Record<string, number>>;
}

/** How to load a target. */
export interface LoadPlan {
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
}

/**
 * Warm-up for `warmupSeconds`, then a measured run of a fixed number of requests sized from the
 * warm-up rate to last about `durationSeconds`. A fixed amount (not a time limit) means every
 * request sent is answered and counted, so responses can be compared with events exactly.
 * `between` runs after the warm-up, right before the measured run (take "before" readings there).
 */
export async function load(
  name: string,
  plan: LoadPlan,
  request: Record<string, unknown>,
  between?: () => Promise<void>,
): Promise<Measured> {
  const { connections } = plan;
  const warm = await autocannon({ ...request, connections, duration: plan.warmupSeconds });
  await between?.();
  const amount = Math.max(
    connections * 10,
    Math.round(warm.requests.average * plan.durationSeconds),
  );
  const started = process.hrtime.bigint();
  const result = await autocannon({ ...request, connections, amount });
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

/** Warm-up only (JIT, first growth of tables), nothing measured. */
export async function warmUp(plan: LoadPlan, request: Record<string, unknown>): Promise<void> {
  await autocannon({ ...request, connections: plan.connections, duration: plan.warmupSeconds });
}

/** Several runs of one target as one: their mean rate, the worst of their p99s. */
export function combinedRuns(runs: readonly Measured[]): Measured {
  return {
    ...runs[0]!,
    rps: runs.reduce((sum, run) => sum + run.rps, 0) / runs.length,
    p99: Math.max(...runs.map((run) => run.p99)),
  };
}
