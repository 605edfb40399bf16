import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { runMarkedStatementsPrepared } from '#event-log/prepared-statements.js';

// int8 columns (positions, counters) arrive as numbers; they stay far below 2^53 here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Options for {@link connect}. */
export interface ConnectOptions {
  readonly url: string;
  readonly poolSize: number;
  /** Aborts sessions idle inside a transaction, which would otherwise stall the projector. */
  readonly idleInTransactionTimeoutMs: number;
  readonly applicationName: string;
  /** Server-side bound on one statement (0: none). A stalled query fails instead of hanging. */
  readonly statementTimeoutMs?: number;
  /** Server-side bound on waiting for a lock (0: none). */
  readonly lockTimeoutMs?: number;
  /** How long to wait for a connection (pool slot or new socket) before failing. */
  readonly connectTimeoutMs?: number;
  /** Told of connection errors (a dropped socket); they never crash the process. */
  readonly onConnectionError?: (error: Error) => void;
}

/** A pool plus the typed query builder over it; close with {@link DatabaseHandle.close}. */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/** Opens a pool to `url`. Nothing is queried until first use. */
export function connect(options: ConnectOptions): DatabaseHandle {
  const settings = [
    `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`,
    `-c statement_timeout=${options.statementTimeoutMs ?? 0}`,
    `-c lock_timeout=${options.lockTimeoutMs ?? 0}`,
  ];
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName,
    options: settings.join(' '),
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // Client-side backstop for a server that stops answering without closing the socket.
    query_timeout: options.statementTimeoutMs ? options.statementTimeoutMs + 2_000 : undefined,
    keepAlive: true,
  });
  const onError = (error: Error) => options.onConnectionError?.(error);
  // pg-pool only listens on idle clients: a checked-out client's 'error' would end the process.
  pool.on('connect', (client) => {
    client.on('error', onError);
    runMarkedStatementsPrepared(client);
  });
  pool.on('error', onError);
  const db = kyselyOver(pool);
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

/** Kysely over a pool made elsewhere, with {@link connect}'s int8 parsing. */
export function kyselyOver(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
