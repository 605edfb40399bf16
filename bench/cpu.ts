import type pg from 'pg';
import { cpuSeconds, familyCpuSeconds, totalCpuSeconds } from '../tools/reliability/proc.js';
import { PROJECTOR_POOL_NAMES } from '../src/projections/frozen-sessions.js';

/** Process groups whose CPU the benchmark accounts for, each a function giving its pids now. */
export type CpuGroups = Readonly<Record<string, () => readonly number[]>>;

/**
 * CPU seconds used so far by each group, plus Postgres: every `postgres` process, found by name at
 * each reading, with the backends that exited meanwhile (familyCpuSeconds). Linux /proc only.
 */
export async function cpuByGroup(groups: CpuGroups): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const [name, pids] of Object.entries(groups)) result[name] = await totalCpuSeconds(pids());
  result.postgres = await familyCpuSeconds('postgres');
  return result;
}

/** Milliseconds of CPU per request between two readings, by group. */
export function cpuMsPer(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
  requests: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).map((key) => [
      key,
      ((after[key]! - (before[key] ?? 0)) * 1000) / Math.max(1, requests),
    ]),
  );
}

/**
 * CPU seconds used so far by the Postgres processes alive now, by role: a client backend by its
 * application_name (a process id at its end dropped, and every projector pool named as one, so
 * each API or projector process is one role), the rest
 * by backend type (checkpointer, walwriter, autovacuum worker...). A backend that exits between
 * two readings is lost to its role: pools keep theirs for the run.
 */
export async function postgresCpuByRole(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ pid: number; role: string }>(
    `SELECT pid, CASE WHEN datname = 'oidc_peer' THEN 'durable peer'
                      ELSE coalesce(nullif(application_name, ''), backend_type) END AS role
     FROM pg_stat_activity WHERE pid <> pg_backend_pid()`,
  );
  const result: Record<string, number> = {};
  for (const { pid, role } of rows) {
    const name = PROJECTOR_POOL_NAMES.test(role)
      ? 'token-authority-projector'
      : role.replace(/-\d+$/, '');
    result[name] = (result[name] ?? 0) + (await cpuSeconds(pid));
  }
  return result;
}
