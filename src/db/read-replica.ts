import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Where a read is served from, and how far behind the primary that source was last seen. */
export interface ReadSource {
  readonly db: Kysely<Database>;
  readonly source: 'replica' | 'primary';
  /** How far behind the primary (ms) the replica was at the last check; 0 for the primary. */
  readonly lagMs: number;
}

/** Picks the database audit and monitoring reads go to; see {@link createReadRouter}. */
export interface ReadRouter {
  reads(): ReadSource;
  close(): void;
}

interface Sample {
  readonly at: number;
  readonly lsn: bigint;
}

const lsnValue = (lsn: string) => {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

/**
 * Reads go to READ_DATABASE_URL while within `maxLagMs`, else the primary. Lag is measured against
 * the primary's WAL position (a stalled replica believes it is current); a silent one is bypassed.
 */
export function createReadRouter(
  primary: Kysely<Database>,
  replica: Kysely<Database> | undefined,
  options: { readonly maxLagMs: number; readonly checkMs: number },
): ReadRouter {
  if (!replica) {
    return { reads: () => ({ db: primary, source: 'primary', lagMs: 0 }), close: () => undefined };
  }
  const samples: Sample[] = [];
  let lagMs = Number.POSITIVE_INFINITY;
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      const now = Date.now();
      const position = await sql<{ lsn: string; standby: boolean }>`
        SELECT pg_current_wal_flush_lsn()::text AS lsn, pg_is_in_recovery() AS standby`.execute(
        primary,
      );
      samples.push({ at: now, lsn: lsnValue(position.rows[0]!.lsn) });
      if (samples.length > 600) samples.shift();
      const replayed = await sql<{ lsn: string | null; standby: boolean }>`
        SELECT COALESCE(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS lsn,
               pg_is_in_recovery() AS standby`.execute(replica);
      const at = lsnValue(replayed.rows[0]!.lsn ?? '0/0');
      // The latest moment the primary had written no further than the replica has replayed.
      const caughtUpTo = [...samples].reverse().find((sample) => sample.lsn <= at);
      lagMs = caughtUpTo ? Math.max(0, now - caughtUpTo.at) : Number.POSITIVE_INFINITY;
    } catch {
      lagMs = Number.POSITIVE_INFINITY;
    } finally {
      checking = false;
    }
  };
  void check();
  const timer = setInterval(() => void check(), options.checkMs);
  timer.unref();
  return {
    reads: () =>
      lagMs <= options.maxLagMs
        ? { db: replica, source: 'replica', lagMs }
        : { db: primary, source: 'primary', lagMs: 0 },
    close: () => clearInterval(timer),
  };
}
