/**
 * `npm run chaos -- --cycles=N`: issues tokens from many concurrent clients while it SIGKILLs the
 * API, the projector and Postgres in turns and restarts them, then verifies the log: every token
 * a client received has its committed event, no token is recorded twice, the views equal a
 * recomputation from the log, and the log tree recomputed from the events holds to every signed
 * head (its root, and the head's signature by the harness's audit key). Prints a JSON report;
 * exit 0 when all of that holds and no request got a 5xx other than 503 (with Retry-After) or hung.
 */
import { startHarness, type Role } from '../reliability/harness.js';
import { createClients, startLoad } from '../reliability/load.js';
import { judgeLog, waitForProjector } from '../reliability/oracle.js';
import { parseCommandLine } from '#settings/command-line.js';

const { values } = parseCommandLine(
  `Usage: npm run chaos -- [--cycles=<n>] [--phase-ms=<ms>] [--concurrency=<n>]
Kills the API, the projector and Postgres in turns under load (n cycles, default 6), restarts
each, then verifies the log and the views. Exit 0 when everything holds.`,
  {
    cycles: { type: 'string', default: '6' },
    'phase-ms': { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '16' },
  },
);
const cycles = Number(values.cycles);
const phaseMs = Number(values['phase-ms']);
const concurrency = Number(values.concurrency);
const progress = (message: string) => process.stderr.write(`[chaos] ${message}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const harness = await startHarness();
let exitCode = 1;
try {
  const clients = await createClients(
    harness.apiUrl,
    await harness.loginToken('chaos-space'),
    'chaos-space',
    4,
  );
  const load = startLoad(harness.apiUrl, clients, concurrency);
  const order: Role[] = ['api', 'projector', 'postgres'];
  const recoveries: Array<{ role: Role; recoveryMs: number }> = [];
  for (let cycle = 0; cycle < cycles; cycle++) {
    await pause(phaseMs);
    const role = order[cycle % order.length]!;
    progress(`cycle ${cycle + 1}/${cycles}: SIGKILL ${role}`);
    await harness.kill(role);
    await pause(Math.min(phaseMs, 1000));
    const restartedAt = Date.now();
    await harness.restart(role);
    // Recovered once a token is issued after the restart.
    const okBefore = load.okCount();
    while (load.okCount() === okBefore && Date.now() - restartedAt < 30_000) await pause(20);
    recoveries.push({ role, recoveryMs: Date.now() - restartedAt });
  }
  await pause(phaseMs);
  const report = await load.stop();
  progress(`load stopped after ${report.requests} requests; waiting for the projector`);
  const caughtUp = await waitForProjector(harness.pool, 60_000);
  const verdict = await judgeLog(harness.pool, report.receivedJtis, {
    publicKey: harness.auditPublicKey,
  });
  const ok =
    caughtUp &&
    verdict.ok &&
    report.serverErrors.length === 0 &&
    report.unavailableWithoutRetryAfter === 0 &&
    recoveries.every((r) => r.recoveryMs < 30_000);
  console.log(
    JSON.stringify(
      {
        ok,
        cycles,
        requests: report.requests,
        byStatus: report.byStatus,
        tokensReceived: report.receivedJtis.length,
        maxLatencyMs: report.maxLatencyMs,
        max503LatencyMs: report.max503LatencyMs,
        serverErrors: report.serverErrors.slice(0, 10),
        unavailableWithoutRetryAfter: report.unavailableWithoutRetryAfter,
        recoveries,
        projectorCaughtUp: caughtUp,
        verdict,
      },
      null,
      2,
    ),
  );
  exitCode = ok ? 0 : 1;
} finally {
  await harness.stop();
}
process.exit(exitCode);
