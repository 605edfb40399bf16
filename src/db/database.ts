import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

// int8 columns (positions, counters) arrive as numbers; they stay far below 2^53 here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Options for {@link connect}. */
export interface ConnectOptions {
  readonly url: string;
  readonly poolSize: number;
  /** Aborts sessions idle inside a transaction, which would otherwise stall the projector. */
  readonly idleInTransactionTimeoutMs: number;
  readonly applicationName: string;
}

/** A pool plus the typed query builder over it; close with {@link DatabaseHandle.close}. */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/** Opens a pool to `url`. Nothing is queried until first use. */
export function connect(options: ConnectOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName,
    options: `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`,
    connectionTimeoutMillis: 10_000,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    // Kysely ends the pool only if it ever used it; end it ourselves for pool-only users.
    close: () =>
      (closed ??= db.destroy().then(async () => {
        if (!pool.ended) await pool.end();
      })),
  };
}
