import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { DatabaseHandle } from '../db/database.js';
import { PROJECTIONS } from '../projections/all.js';
import { startProjector, type RunningProjector } from '../projections/projector.js';
import { loadAuditSigningKey, signCheckpoint } from '../audit-trail/audit-key.js';
import { purgeExpiredRevocations } from '../projections/token-revocations.js';
import { purgeExpiredIdempotentResponses } from '../projections/idempotent-responses.js';
import { purgeExpiredUsedOnce } from '../projections/used-once-ids.js';
import { purgeOldRates } from '../projections/rates.js';
import { keepPartitionsAhead } from '../event-store/partitions.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The projector as `npm run projector` runs it: every view, the hash chains, and signed audit
 * checkpoints every AUDIT_CHECKPOINT_INTERVAL_SECONDS.
 */
export async function startProjectorService(
  config: Config,
  logger: Logger,
  database: { readonly handle: DatabaseHandle; readonly url: string },
): Promise<RunningProjector> {
  const auditKey = await loadAuditSigningKey(config.AUDIT_SIGNING_KEY, config.DATA_DIR);
  const projector = await startProjector({
    db: database.handle.db,
    url: database.url,
    projections: PROJECTIONS,
    batchSize: config.PROJECTOR_BATCH_SIZE,
    pollIntervalMs: config.PROJECTOR_POLL_INTERVAL_MS,
    logger,
    seal: true,
    checkpoints: {
      intervalMs: config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000,
      sign: (statement) => signCheckpoint(auditKey, statement),
      dir: config.AUDIT_CHECKPOINT_DIR ?? path.resolve(config.DATA_DIR, 'audit-checkpoints'),
    },
  });
  // The leader alone keeps the read models bounded: revocations and used-once ids past expiry,
  // sealed responses whose retry window closed, rate buckets past their horizon.
  const purges = [
    { what: 'expired revocations', run: purgeExpiredRevocations },
    { what: 'expired idempotent responses', run: purgeExpiredIdempotentResponses },
    { what: 'expired used-once ids', run: purgeExpiredUsedOnce },
    {
      what: 'rate buckets past their horizon',
      run: (db: Kysely<Database>) =>
        purgeOldRates(db, {
          minuteBucketsHours: config.RATE_MINUTE_RETENTION_HOURS,
          hourBucketsDays: config.RATE_HOUR_RETENTION_DAYS,
        }),
    },
  ];
  const purge = setInterval(() => {
    if (!projector.isLeader()) return;
    for (const { what, run } of purges) {
      run(database.handle.db).then(
        (removed) => removed > 0 && logger.info({ removed }, `${what} purged`),
        (error: unknown) => logger.warn({ err: error }, `${what} not purged`),
      );
    }
  }, PURGE_MS);
  purge.unref();
  const stopPartitions = keepPartitionsAhead(database.handle.db, (error) =>
    logger.warn({ err: error }, 'partitions of the log not ensured'),
  );
  return {
    ...projector,
    stop: async () => {
      clearInterval(purge);
      stopPartitions();
      await projector.stop();
    },
  };
}

const PURGE_MS = 60_000;
