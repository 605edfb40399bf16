import type { Measured } from './load.js';
import { measureTwin, type TwinOptions } from './twin.js';
import { total as cpuTotal } from './report.js';

/** `--compare=NAME=a,b,…`: the private endpoint on twins differing in one setting, in turns. */
export interface Comparison {
  readonly setting: string;
  readonly values: readonly string[];
  /** Per round, one run per value, in the order given. */
  readonly rounds: ReadonlyArray<readonly Measured[]>;
}

/** `NAME=a,b,…` parsed: a setting's name and at least two values. */
export function comparedSetting(
  spec: string | undefined,
): { setting: string; values: string[] } | undefined {
  if (spec === undefined) return undefined;
  const match = /^([A-Z][A-Z0-9_]*)=([^,]+(?:,[^,]+)+)$/.exec(spec);
  if (!match) throw new Error(`--compare=${spec}: expected NAME=value,value[,…]`);
  return { setting: match[1]!, values: match[2]!.split(',') };
}

/**
 * Twins differing only in `setting`, each value in turn, `rounds` times, the order reversed every
 * other round: the machine's drift falls on every value alike, which two runs of `npm run bench`
 * minutes apart cannot promise (and a fixed order cannot either, on a VM speeding up or slowing).
 */
export async function measureComparison(
  options: TwinOptions,
  compared: { setting: string; values: readonly string[] },
  rounds = 3,
): Promise<Comparison> {
  const runs: Measured[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const runsOfRound: Measured[] = [];
    const order = compared.values.map((_, index) => index);
    if (round % 2 === 0) order.reverse();
    for (const index of order) {
      const value = compared.values[index]!;
      const label = `${compared.setting}=${value}, round ${round}`;
      runsOfRound[index] = await measureTwin(options, label, { [compared.setting]: value });
    }
    runs.push(runsOfRound);
  }
  return { ...compared, rounds: runs };
}

/** The report's section: each round's req/s and CPU per token by value, ratios to the first. */
export function comparisonSection(comparison: Comparison): string {
  const { setting, values, rounds } = comparison;
  // Every process's CPU and the API's alone: a change that moves work off the API's one event loop
  // shows there first, whatever the machine's drift does to req/s.
  const cpu = (run: Measured) =>
    `${cpuTotal(run.cpuMsPerRequest).toFixed(3)} · ${(run.cpuMsPerRequest?.api ?? 0).toFixed(3)}`;
  const rows = rounds.map(
    (runs, index) =>
      `| ${index + 1} | ${runs.map((run) => `${Math.round(run.rps).toLocaleString('en-US')} (${cpu(run)} ms)`).join(' | ')} | ${runs
        .slice(1)
        .map((run) => (run.rps / runs[0]!.rps).toFixed(2))
        .join(' | ')} |`,
  );
  const total = (index: number) => rounds.reduce((sum, runs) => sum + runs[index]!.rps, 0);
  const overall = values
    .slice(1)
    .map((value, index) => `${value}: ${(total(index + 1) / total(0)).toFixed(2)}×`)
    .join(', ');
  return [
    `## ${setting} compared (\`--compare\`)`,
    '',
    `The private-token endpoint on twin services started after the main runs, differing only in \`${setting}\`, each value in turn, the order reversed every other round. Per value: req/s and, in brackets, CPU per token over every process · in the API's processes (ms). Ratios are to \`${setting}=${values[0]}\` in the same round.`,
    '',
    `| round | ${values.map((value) => `${setting}=${value}`).join(' | ')} | ${values
      .slice(1)
      .map((value) => `${value} ÷ ${values[0]}`)
      .join(' | ')} |`,
    `| --- | ${values.map(() => '---:').join(' | ')} | ${values
      .slice(1)
      .map(() => '---:')
      .join(' | ')} |`,
    ...rows,
    '',
    `Over all rounds, req/s ÷ ${setting}=${values[0]}: ${overall}.`,
    '',
  ].join('\n');
}
