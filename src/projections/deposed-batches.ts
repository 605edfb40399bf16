import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';

const BATCHES = 'token-authority-projector-batches-';

/**
 * The application_name of this process's projector batches: one per process, random (in a
 * container every process may be pid 1), so a leader tells its own sessions from another's.
 */
export const PROJECTOR_BATCHES_NAME = `${BATCHES}${randomBytes(6).toString('hex')}`;

/**
 * Ends every other projector process's batch session still in a transaction; called by the leader
 * when its pass gave up on a lock. Only the leader runs batches, so such a session is a deposed
 * leader's: one frozen mid-statement (a read blocked on a paused client) keeps its locks past
 * every timeout, and a cancel cannot reach it. Ending it rolls its batch back. A rebuild's pool
 * is named otherwise and is never ended; nor is another role's session, whatever it calls itself
 * (one it may not end would fail the whole statement).
 */
export async function endDeposedBatches(session: pg.Client, logger: Logger): Promise<void> {
  const { rows } = await session
    .query<{ pid: number; name: string; ended: boolean }>(
      `SELECT pid, application_name AS name, pg_terminate_backend(pid) AS ended
         FROM pg_stat_activity
        WHERE datname = current_database() AND usename = current_user AND xact_start IS NOT NULL
          AND starts_with(application_name, $1) AND application_name <> $2`,
      [BATCHES, PROJECTOR_BATCHES_NAME],
    )
    .catch((error: unknown) => {
      // Another role's sessions (no privilege to end them): left to an operator, as before.
      logger.warn({ err: error }, 'could not end a deposed projector batch');
      return { rows: [] };
    });
  if (rows.length > 0) logger.warn({ sessions: rows }, 'ended a deposed projector batch');
}
