/**
 * `npm run projector-health`: exit 0 when some projector leads and every view is less than
 * PROJECTOR_HEALTH_MAX_LAG_SECONDS (default 60) behind the log; 1 otherwise. For container
 * health checks of the projector service.
 */
import { connect } from '../db/database.js';
import { projectorLag } from '../projections/monitoring-queries.js';
import { PROJECTOR_LOCK_KEY } from '../projections/projector.js';
import { configOrExit } from './runtime.js';

const config = configOrExit();
if (!config.DATABASE_URL) {
  console.error('projector-health needs DATABASE_URL');
  process.exit(2);
}
const maxLag = Number(process.env.PROJECTOR_HEALTH_MAX_LAG_SECONDS ?? 60);
const database = connect({
  url: config.DATABASE_URL,
  poolSize: 1,
  applicationName: 'token-authority-health',
  idleInTransactionTimeoutMs: 5000,
});
try {
  const leader = await database.pool.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
       AND ((classid::bigint << 32) | objid::bigint) = $1`,
    [PROJECTOR_LOCK_KEY],
  );
  const lag = await projectorLag(database.db);
  const worst = Math.max(0, ...lag.map((row) => Number(row.seconds_behind)));
  const healthy = leader.rowCount === 1 && worst < maxLag;
  console.log(JSON.stringify({ healthy, leader: leader.rowCount === 1, lag }));
  process.exitCode = healthy ? 0 : 1;
} finally {
  await database.close();
}
