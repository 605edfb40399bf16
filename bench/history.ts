import { execFileSync } from 'node:child_process';
import { fastestOf, total, type BenchResults } from './report.js';

// The section a rewrite of docs/benchmarks.md keeps: one run proves little on a drifting VM.
const BEGIN = '<!-- runs: kept by bench/history.ts across rewrites; newest first -->';
const END = '<!-- /runs -->';
const KEEP = 6;

const HEADER = [
  '## Recent runs',
  '',
  'Each `npm run bench` that writes this file adds its row; the last six are kept. Ratios as above',
  '(the durable peer: the faster of its two rounds); CPU and WAL per private token, ours against',
  'the durable peer (its process and Postgres).',
  '',
  '| date | commit | Node | ceiling req/s | private ÷ durable | public ÷ durable | private ÷ in-memory | public ÷ in-memory | CPU ms: ours API / all | CPU ms: durable peer / all | WAL bytes: private / public / durable |',
  '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];

/** The commit measured, `+` when the tree had changes (this report aside); `unknown` outside a checkout. */
export function measuredCommit(cwd: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd, timeout: 5000, encoding: 'utf8' }).trim();
  try {
    const changed = git('status', '--porcelain', '--', '.', ':!docs/benchmarks.md');
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? '+' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** This run's row of the recent-runs table. */
export function runRow(results: BenchResults, commit: string, date: Date): string {
  const { ceiling, peer, privateRun, publicRun } = results;
  const durable = fastestOf(results.durable);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const ms = (n: number | undefined) => (n ?? 0).toFixed(3);
  const bytes = (r: { walBytesPerRequest?: number }) =>
    r.walBytesPerRequest === undefined ? '—' : Math.round(r.walBytesPerRequest).toString();
  return `| ${date.toISOString().slice(0, 10)} | ${commit} | ${process.version} | ${Math.round(ceiling.rps)} | ${ratio(privateRun.rps, durable.rps)} | ${ratio(publicRun.rps, durable.rps)} | ${ratio(privateRun.rps, peer.rps)} | ${ratio(publicRun.rps, peer.rps)} | ${ms(privateRun.cpuMsPerRequest?.api)} / ${ms(total(privateRun.cpuMsPerRequest))} | ${ms(durable.cpuMsPerRequest?.target)} / ${ms(total(durable.cpuMsPerRequest))} | ${bytes(privateRun)} / ${bytes(publicRun)} / ${bytes(durable)} |`;
}

/** The rows `previous` (the file as it was, if any) kept, newest first. */
export function keptRows(previous: string | undefined): string[] {
  if (previous === undefined) return [];
  const start = previous.indexOf(BEGIN);
  const end = previous.indexOf(END, start);
  if (start < 0 || end < 0) return [];
  return previous
    .slice(start + BEGIN.length, end)
    .split('\n')
    .filter(
      (line) => line.startsWith('| ') && !line.startsWith('| date') && !line.startsWith('| ---'),
    );
}

/** The recent-runs section: `row` first, then what `previous` kept, at most six rows. */
export function historySection(previous: string | undefined, row: string): string {
  const rows = [row, ...keptRows(previous)].slice(0, KEEP);
  return [BEGIN, ...HEADER, ...rows, END, ''].join('\n');
}
