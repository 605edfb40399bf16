import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';

/** This process's projector batches: one name per process, random (in a container all are pid 1). */
export const PROJECTOR_BATCHES_NAME = `token-authority-projector-batches-${randomBytes(6).toString('hex')}`;

/**
 * Ends another projector process's batch session stuck writing to its client: called by the leader
 * once its pass gave up on a lock. A leader frozen mid-read (SIGSTOP, a paused VM) leaves its
 * backend blocked in ClientWrite, in its transaction, holding its locks past every timeout; a
 * cancel cannot reach it there, a terminate can. Only that shape is ended: the exact name of a
 * batches pool not ours (no `-owner` session, rebuild or archiver), the same login as ours, and
 * stuck longer than the pass waited. Anything else is left to its own timeouts or an operator.
 */
export async function endDeposedBatches(
  session: pg.Client,
  stuckForMs: number,
  logger: Logger,
): Promise<void> {
  const { rows } = await session
    .query<{ pid: number; name: string; ended: boolean }>({
      text: `SELECT pid, application_name AS name, pg_terminate_backend(pid) AS ended
               FROM pg_stat_activity
              WHERE datname = current_database() AND usename = session_user
                AND application_name ~ '^token-authority-projector-batches-[0-9a-f]{12}$'
                AND application_name <> $1
                AND state = 'active' AND wait_event = 'ClientWrite'
                AND xact_start < now() - make_interval(secs => $2)`,
      values: [PROJECTOR_BATCHES_NAME, stuckForMs / 1000],
      query_timeout: 5000,
    } as pg.QueryConfig)
    .catch((error: unknown) => {
      // A leader session gone, or pg_terminate_backend not granted: nothing ended, said so.
      logger.warn({ err: error }, 'could not look for a deposed projector batch');
      return { rows: [] };
    });
  if (rows.length > 0) logger.warn({ sessions: rows }, 'ended a deposed projector batch');
  else logger.info('a pass gave up on a lock; no deposed projector batch holds it');
}
