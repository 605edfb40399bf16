/**
 * `npm run bench:fleet`: private-token issuance through the fleet's HAProxy with 1, 2 and 3 API
 * replicas (Patroni leader + synchronous standby, two projectors), each started fresh, loaded
 * with the same plan, then stopped. Prints a Markdown table (docs/scaling.md). Needs the apt
 * packages of `npm run fleet`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { parseCommandLine } from '#settings/command-line.js';
import { benchClient } from './client.js';
import { load } from './load.js';

const { values } = parseCommandLine(
  `Usage: npm run bench:fleet [-- --replicas=1,2,3] [--duration=10] [--connections=50]`,
  {
    replicas: { type: 'string', default: '1,2,3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
  },
);
const counts = values.replicas.split(',').map(Number);
const plan = {
  connections: Number(values.connections),
  warmupSeconds: 3,
  durationSeconds: Number(values.duration),
};

const rows: string[] = [];
for (const replicas of counts) {
  const dir = mkdtempSync('/tmp/token-authority-bench-fleet-');
  const fleet = (...args: string[]) => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'tools/cli/fleet.ts', ...args, `--dir=${dir}`],
      {
        encoding: 'utf8',
        // The bench measures throughput, not budgets: limits lifted as in `npm run bench`.
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          CLIENT_RATE_LIMIT_PER_MINUTE: '1000000000',
          SPACE_RATE_LIMIT_PER_MINUTE: '1000000000',
        },
      },
    );
    if (run.status !== 0) throw new Error(`fleet ${args[0]}: ${run.stderr}`);
    return run.stdout.trim().split('\n').at(-1)!;
  };
  try {
    const { lb_url: lb } = JSON.parse(
      fleet('up', `--api-replicas=${replicas}`, '--pg-nodes=2'),
    ) as {
      lb_url: string;
    };
    const client = await benchClient(lb, path.join(dir, 'data'), 'storefront.api.local');
    const measured = await load(`${replicas} replicas`, plan, client.privateRequest);
    rows.push(
      `| ${replicas} | ${Math.round(measured.rps).toLocaleString('en-US')} | ${measured.p50} | ${measured.p99} | ${measured.non2xx} | ${measured.errors} |`,
    );
    console.error(rows.at(-1));
  } finally {
    fleet('down');
  }
}
console.log(`Private-token issuance through HAProxy, ${plan.connections} connections, ${plan.durationSeconds} s after a ${plan.warmupSeconds} s warm-up; Patroni leader + synchronous standby, two projectors, all on this machine.

| API replicas | req/s | p50 ms | p99 ms | non-2xx | errors |
| ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}`);
