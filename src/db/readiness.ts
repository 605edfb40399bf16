import type pg from 'pg';
import { isMigrated } from './migrate.js';

/** Whether the database can serve requests right now. */
export interface Readiness {
  check(): Promise<{ readonly ready: true } | { readonly ready: false; readonly detail: string }>;
}

/** Readiness backed by a live query; the migration check is remembered once it has passed. */
export function databaseReadiness(pool: pg.Pool, timeoutMs = 2000): Readiness {
  let migrated = false;
  return {
    async check() {
      try {
        const probe = (async () => {
          await pool.query('SELECT 1');
          migrated ||= await isMigrated(pool);
        })();
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        await Promise.race([probe, timeout]).finally(() => clearTimeout(timer));
        return migrated ? { ready: true } : { ready: false, detail: 'migrations not applied' };
      } catch (error) {
        return { ready: false, detail: `database unreachable: ${(error as Error).message}` };
      }
    },
  };
}
