import { describe, expect, it } from 'vitest';
import { historySection, keptRows, runRow } from '../../bench/history.js';
import type { BenchResults } from '../../bench/report.js';

// Ours are counted as `api`, a peer's own process as `target`; Postgres beside either.
const run = (rps: number, own: number, wal: number, process: 'api' | 'target' = 'api') => ({
  name: 'run',
  rps,
  cpuMsPerRequest: { [process]: own, postgres: 0.1 },
  walBytesPerRequest: wal,
});

const results = {
  ceiling: run(30_000, 0, 0),
  peer: run(8000, 0.15, 0),
  durable: [run(5000, 0.14, 805, 'target'), run(4000, 0.13, 810, 'target')],
  privateRun: run(6000, 0.17, 1643),
  publicRun: run(5500, 0.16, 1937),
} as unknown as BenchResults;

describe("the bench report's recent runs", () => {
  it('given a run, then its row holds the ratios to the faster durable round and the budgets', () => {
    const row = runRow(results, 'abc1234', new Date('2026-12-02T00:00:00Z'));
    expect(row).toBe(
      `| 2026-12-02 | abc1234 | ${process.version} | 30000 | 1.20× | 1.10× | 0.75× | 0.69× | 0.170 / 0.270 | 0.140 / 0.240 | 1643 / 1937 / 805 |`,
    );
  });

  it('given the file as it was, then the new row comes first and the last six are kept', () => {
    let file: string | undefined;
    for (let i = 1; i <= 8; i++) file = `# Benchmarks\n\n${historySection(file, `| run ${i} |`)}`;
    expect(keptRows(file)).toEqual([
      '| run 8 |',
      '| run 7 |',
      '| run 6 |',
      '| run 5 |',
      '| run 4 |',
      '| run 3 |',
    ]);
  });

  it('given a file without the section (or none), then the new row alone', () => {
    expect(keptRows('# Benchmarks\n| a | b |\n')).toEqual([]);
    expect(keptRows(historySection(undefined, '| only |'))).toEqual(['| only |']);
  });
});
