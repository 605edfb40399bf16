import pg from 'pg';
import type { Logger } from 'pino';
import type { Nap } from './nap.js';

/** Options of {@link leadWhileLocked}: its session, its lock, what it logs and how long it waits. */
export interface LeaderSessionOptions {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly applicationName: string;
  readonly lock: number;
  /** "<name> is the leader"; `failure` logged before a retry, `standbyNote` when another leads. */
  readonly name: string;
  readonly failure: string;
  readonly standbyNote?: string;
  readonly standbyRetryMs: number;
  readonly retryMs: number;
  readonly logger: Logger;
  readonly nap: Nap;
  stopping(): boolean;
  /** Told the session while it leads, `undefined` once it no longer does. */
  leading(session: pg.Client | undefined): void;
  lead(session: pg.Client): Promise<void>;
}

/** Leads while holding the lock on its own session; on failure closes it and retries. */
export async function leadWhileLocked(options: LeaderSessionOptions): Promise<void> {
  const { logger, nap } = options;
  while (!options.stopping()) {
    const session = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      application_name: options.applicationName,
    });
    session.on('error', () => undefined);
    try {
      await session.connect();
      const { rows } = await session.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS ok',
        [options.lock],
      );
      if (!rows[0]?.ok) {
        await session.end();
        if (options.standbyNote) logger.debug(options.standbyNote);
        await nap.sleep(options.standbyRetryMs);
        continue;
      }
      options.leading(session);
      logger.info(`${options.name} is the leader`);
      await options.lead(session);
    } catch (error) {
      if (!options.stopping()) {
        logger.error({ err: error }, options.failure);
        await nap.sleep(options.retryMs);
      }
    } finally {
      options.leading(undefined);
      await session.end().catch(() => undefined);
    }
  }
}
