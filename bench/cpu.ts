import { familyCpuSeconds, totalCpuSeconds } from '../tools/reliability/proc.js';

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
