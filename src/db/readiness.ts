import type pg from 'pg';
import { isMigrated } from './migrate.js';

/** Why the service is not ready, in words safe to show anyone (no database error text). */
export type NotReadyReason =
  'database_unreachable' | 'database_timeout' | 'migrations_pending' | 'signer_unavailable';

/** Whether the database can serve requests right now. */
export interface Readiness {
  check(): Promise<
    | { readonly ready: true }
    | { readonly ready: false; readonly reason: NotReadyReason; readonly error?: unknown }
  >;
}

/** Readiness backed by a live query; the migration check is remembered once it has passed. */
export function databaseReadiness(pool: pg.Pool, timeoutMs = 2000): Readiness {
  let migrated = false;
  return {
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = Symbol('timeout');
      try {
        const probe = (async () => {
          await pool.query('SELECT 1');
          migrated ||= await isMigrated(pool);
        })();
        const timeout = new Promise<typeof timedOut>((resolve) => {
          timer = setTimeout(() => resolve(timedOut), timeoutMs);
        });
        probe.catch(() => undefined); // if the timeout wins, the probe's failure is not news
        if ((await Promise.race([probe, timeout])) === timedOut) {
          return { ready: false, reason: 'database_timeout' };
        }
        return migrated ? { ready: true } : { ready: false, reason: 'migrations_pending' };
      } catch (error) {
        return { ready: false, reason: 'database_unreachable', error };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** `readiness`, then each of `others`: the first not ready names why (the signer too). */
export function readinessWith(
  readiness: Readiness,
  ...others: ReadonlyArray<() => NotReadyReason | undefined>
): Readiness {
  return {
    async check() {
      const state = await readiness.check();
      if (!state.ready) return state;
      for (const other of others) {
        const reason = other();
        if (reason) return { ready: false, reason };
      }
      return state;
    },
  };
}
