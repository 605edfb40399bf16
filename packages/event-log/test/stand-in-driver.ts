import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { EventLogTables } from '../src/table.js';

/** What the stand-in database answers a statement: its rows (none by default). */
export type Answer = (query: CompiledQuery) => Promise<readonly unknown[]> | readonly unknown[];

/**
 * A kysely database whose driver records every statement it is sent (BEGIN and COMMIT included)
 * and answers each with `answer`: the log's SQL seen without a Postgres.
 */
export function standInDatabase(answer: Answer = () => []) {
  const sent: string[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      sent.push(query.sql);
      return { rows: (await answer(query)) as R[] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('the stand-in streams nothing');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => void sent.push('BEGIN'),
    commitTransaction: async () => void sent.push('COMMIT'),
    rollbackTransaction: async () => void sent.push('ROLLBACK'),
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const db = new Kysely<EventLogTables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, sent };
}

/** A database that only compiles (nothing is ever sent). */
export const CompiledOnly = standInDatabase().db;
