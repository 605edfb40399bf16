import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';

const PREFIX = 'token-authority-projector-pool-';
/** Every projector process's pool name (PREFIX and 12 hex digits): SQL and bench match with it. */
export const PROJECTOR_POOL_NAMES = new RegExp(`^${PREFIX}[0-9a-f]{12}$`);
/** This process's pool: random, as in a container every process may be pid 1. */
export const PROJECTOR_POOL_NAME = `${PREFIX}${randomBytes(6).toString('hex')}`;

/**
 * Ends another projector's session frozen mid-read (SIGSTOP, a paused VM): its backend blocked in
 * ClientWrite holds its transaction's locks past every timeout, and only a terminate reaches it.
 * Only that shape: our login, named as a projector pool not ours (no rebuild, archiver or `-owner`
 * session), in ClientWrite longer than the leader's pass waited. The rest: timeouts or operators.
 */
export async function endFrozenSessions(
  session: pg.Client,
  waitedMs: number,
  logger: Logger,
): Promise<void> {
  const { rows } = await session
    .query<{ pid: number; name: string; ended: boolean }>({
      text: `SELECT pid, application_name AS name, pg_terminate_backend(pid) AS ended
               FROM pg_stat_activity
              WHERE datname = current_database() AND usename = session_user
                AND application_name ~ $1 AND application_name <> $2
                AND state = 'active' AND wait_event = 'ClientWrite'
                AND xact_start < now() - make_interval(secs => $3)`,
      values: [PROJECTOR_POOL_NAMES.source, PROJECTOR_POOL_NAME, waitedMs / 1000],
      query_timeout: 5000,
    } as pg.QueryConfig)
    .catch((error: unknown) => {
      // The leader session gone, or pg_terminate_backend not granted: said so.
      logger.warn({ err: error }, 'could not look for a frozen projector session');
      return { rows: [] };
    });
  const ended = rows.filter((row) => row.ended);
  if (ended.length > 0) logger.warn({ sessions: ended }, 'ended a frozen projector session');
  else logger.info('a pass gave up on a lock; no frozen projector session holds it');
}
