/**
 * `npm run projector-health`: the projector's container health check (exit 0 healthy, 1 not). It
 * never starts an embedded Postgres, only attaches to a running `npm start`'s.
 */
import { projectorLag } from '../projections/monitoring-queries.js';
import { ADVISORY_LOCK } from '../db/advisory-locks.js';
import { operatorDatabase } from './operator.js';
import { configOrExit } from './config-exit.js';
import { parseCommandLine } from '#settings/command-line.js';

parseCommandLine(
  `Usage: npm run projector-health
Exit 0 when a projector leads and no view is over PROJECTOR_HEALTH_MAX_LAG_SECONDS behind.`,
  {},
);
const config = configOrExit('worker');
const database = await operatorDatabase(config, 'projector-health', 'health', {
  attachOnly: true,
  migrate: false,
  timeouts: 'request',
}).catch((error: unknown) => {
  console.log(JSON.stringify({ healthy: false, reason: (error as Error).message }));
  process.exit(1);
});
try {
  const leader = await database.handle.pool.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
       AND ((classid::bigint << 32) | objid::bigint) = $1`,
    [ADVISORY_LOCK.projectorLeader],
  );
  const lag = await projectorLag(database.handle.db);
  const worst = Math.max(0, ...lag.map((row) => Number(row.seconds_behind)));
  const healthy = leader.rowCount === 1 && worst < config.PROJECTOR_HEALTH_MAX_LAG_SECONDS;
  console.log(JSON.stringify({ healthy, leader: leader.rowCount === 1, lag }));
  process.exitCode = healthy ? 0 : 1;
} finally {
  await database.close();
}
