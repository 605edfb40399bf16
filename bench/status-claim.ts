import type { Measured } from './load.js';
import type { TwinOptions } from './twin.js';
import { measureComparison } from './compare.js';

/** Twin runs with (`TOKEN_STATUS_LIST=true`) and without the status claim, in turns. */
export interface StatusClaimRuns {
  readonly rounds: ReadonlyArray<{ readonly with: Measured; readonly without: Measured }>;
}

/**
 * `--status-claim`: the price of issue 65's `status` claim (a list entry taken in memory, about
 * 100 bytes more to sign and to log). The twins take turns, the order reversed every other round,
 * `rounds` times, so the machine's drift during the run falls on both alike.
 */
export async function measureStatusClaim(
  options: TwinOptions,
  rounds = 2,
): Promise<StatusClaimRuns> {
  const compared = { setting: 'TOKEN_STATUS_LIST', values: ['false', 'true'] };
  const { rounds: runs } = await measureComparison(options, compared, rounds);
  return { rounds: runs.map(([without, withClaim]) => ({ with: withClaim!, without: without! })) };
}

/** The report's section: each round's twins, as ratios to the in-memory peer and to each other. */
export function statusClaimSection(runs: StatusClaimRuns, peer: Measured): string {
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const rows = runs.rounds.map(
    (round, index) =>
      `| ${index + 1} | ${Math.round(round.without.rps)} | ${Math.round(round.with.rps)} | ${ratio(round.without.rps, peer.rps)} | ${ratio(round.with.rps, peer.rps)} | ${ratio(round.with.rps, round.without.rps)} |`,
  );
  return [
    '## The status claim (`--status-claim`)',
    '',
    "The private-token endpoint on twin services started after the main runs, in turns: one with `TOKEN_STATUS_LIST=false` (tokens carry no `status` claim), one with the default (every token names its entry in its space's status list, issue 65). Each is warmed and loaded alike; the peer is this run's in-memory node-oidc-provider.",
    '',
    '| round | req/s without | req/s with | without ÷ peer | with ÷ peer | with ÷ without |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}
