import { hostname } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import { PROJECTIONS } from '../projections/all.js';
import { startProjector, type RunningProjector } from '../projections/projector.js';
import { loadAuditSigningKey } from '../audit-trail/audit-key.js';
import { purgeExpiredRevocations } from '../projections/token-revocations.js';
import { purgeExpiredIdempotentResponses } from '../projections/idempotent-responses.js';
import { purgeExpiredUsedOnce } from '../projections/used-once-ids.js';
import { purgedBy } from '../projections/purge.js';
import { purgeOldRates } from '../projections/rates.js';
import { keepPartitionsAhead } from '#event-log/partitions.js';
import { archivePartitions } from '../audit-trail/archive/archive.js';
import { recordArchive } from '../commands/archive/record.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { parseWitnesses, startWitnessing } from '../audit-trail/seal/witnessing.js';
import { connect, type DatabaseHandle } from '../db/database.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { msOf } from '../domain/times.js';
import { startWorkerTraces } from './traces.js';

/**
 * The projector as `npm run projector` runs it: every view, the Merkle trees, and their signed
 * heads (the audit checkpoints) every AUDIT_CHECKPOINT_INTERVAL_SECONDS and at shutdown; with
 * tracing on (OTEL_*), each batch a span linked to the requests whose events it projected.
 */
export async function startProjectorService(
  config: Config,
  logger: Logger,
  database: { readonly handle: DatabaseHandle; readonly url: string },
): Promise<RunningProjector> {
  const auditKey = await loadAuditSigningKey(config.AUDIT_SIGNING_KEY, config.DATA_DIR);
  const traces = await startWorkerTraces(config, 'internal');
  const witnessing = startWitnessing(database.handle.db, parseWitnesses(config.AUDIT_WITNESSES), {
    logger,
  });
  const projector = await startProjector({
    db: database.handle.db,
    url: database.url,
    projections: PROJECTIONS,
    ...(traces.spans ? { spans: traces.spans } : {}),
    batchSize: config.PROJECTOR_BATCH_SIZE,
    catchUpFactor: config.PROJECTOR_CATCH_UP_FACTOR,
    lockWaitMs: config.BACKGROUND_LOCK_TIMEOUT_MS,
    pollIntervalMs: config.PROJECTOR_POLL_INTERVAL_MS,
    logger,
    seal: true,
    sealIntervalMs: config.SEAL_INTERVAL_MS,
    checkpoints: {
      intervalMs: msOf(config.AUDIT_CHECKPOINT_INTERVAL_SECONDS),
      signTreeHead: (treeId, size, root) =>
        signTreeHead(auditKey, treeOrigin(config.TOKEN_ISSUER, treeId), size, root),
      onTreeHead: (head) => witnessing.submit(head),
      dir: config.AUDIT_CHECKPOINT_DIR ?? path.resolve(config.DATA_DIR, 'audit-checkpoints'),
    },
  });
  // The leader alone keeps the read models bounded: revocations, used-once ids and digests past expiry,
  // sealed responses whose retry window closed, rate buckets past their horizon.
  const purges: Record<string, (db: Kysely<Database>) => Promise<number>> = {
    'expired revocations': purgeExpiredRevocations,
    'expired idempotent responses': purgeExpiredIdempotentResponses,
    'expired used-once ids': purgeExpiredUsedOnce,
    'expired token signature digests': (db) => purgedBy(db, 'purge_expired_stream_digests'),
    'expired authorization requests': (db) => purgedBy(db, 'purge_expired_authorization_states'),
    'expired status list entries': (db) => purgedBy(db, 'purge_expired_status_list_entries'),
    'rate buckets past their horizon': (db) =>
      purgeOldRates(db, {
        minuteBucketsHours: config.RATE_MINUTE_RETENTION_HOURS,
        hourBucketsDays: config.RATE_HOUR_RETENTION_DAYS,
      }),
  };
  const purge = setInterval(() => {
    if (!projector.isLeader()) return;
    for (const [what, run] of Object.entries(purges)) {
      run(database.handle.db).then(
        (removed) => removed > 0 && logger.info({ removed }, `${what} purged`),
        (error: unknown) => logger.warn({ err: error }, `${what} not purged`),
      );
    }
  }, PURGE_MS);
  purge.unref();
  const stopPartitions = keepPartitionsAhead(database.handle.db, logger);
  const stopArchiving = archiveOnSchedule(config, logger, () => projector.isLeader());
  return {
    ...projector,
    stop: async () => {
      clearInterval(purge);
      stopPartitions();
      await stopArchiving();
      await projector.stop();
      await witnessing.stop();
      await traces.export?.shutdown();
    },
  };
}

const PURGE_MS = 60_000;
const ARCHIVE_CHECK_MS = 15_000;

/**
 * With ARCHIVE_DIR and MIGRATION_DATABASE_URL set, the leader archives every partition that ended
 * more than RETENTION_HOT_DAYS ago, checking every 15 s. Dropping a partition takes the owner: the
 * projector's own role cannot remove anything, so the owner's URL is asked for explicitly.
 */
function archiveOnSchedule(
  config: Config,
  logger: Logger,
  isLeader: () => boolean,
): () => Promise<void> {
  const ownerUrl = config.MIGRATION_DATABASE_URL;
  const dir = config.ARCHIVE_DIR;
  if (!dir) return async () => undefined;
  if (!ownerUrl) {
    logger.warn('ARCHIVE_DIR is set but MIGRATION_DATABASE_URL is not: nothing is archived');
    return async () => undefined;
  }
  const owner = connect({
    url: ownerUrl,
    poolSize: 2,
    applicationName: 'token-authority-archiver',
    idleInTransactionTimeoutMs: 60_000,
  });
  let running: Promise<void> | undefined;
  const run = () => {
    if (running || !isLeader()) return;
    const before = new Date(Date.now() - config.RETENTION_HOT_DAYS * 86_400_000);
    running = archivePartitions(owner.db, {
      before,
      dir: path.resolve(dir),
      actor: `service:projector@${hostname()}`,
      origin: `projector@${hostname()}`,
      requestId: null,
      record: recordArchive,
    })
      .then((outcomes) => {
        for (const outcome of outcomes) {
          const { partition } = outcome;
          if (!outcome.archived) logger.info({ ...outcome }, 'partition not archived yet');
          else logger.info({ partition, events: outcome.events }, 'partition archived');
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'archiving failed'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, ARCHIVE_CHECK_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
    await owner.close();
  };
}
