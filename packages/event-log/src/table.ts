import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

/** The `events` table as Kysely sees it: one row an event, never updated or deleted. */
export interface EventsTable {
  global_position: Generated<number>;
  transaction_id: Generated<string>;
  space_id: string;
  stream_id: string;
  stream_position: number;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: ColumnType<unknown, string, never>;
  metadata: ColumnType<unknown, string, never>;
  recorded_at: Generated<Date>;
}

/** The tables the log's typed queries read; a service's `Database` holds them among its own. */
export interface EventLogTables {
  events: EventsTable;
}

/**
 * A service's database, or a transaction of it, holding the log's tables. Kysely's database type
 * is invariant, so the log's functions are generic over the service's (the union lets TypeScript
 * infer it from a transaction too) and read only the log's tables, through {@link logTables}.
 */
export type LogDatabase<DB extends EventLogTables> = Kysely<DB> | Transaction<DB>;

/** The service's database as the log's own queries see it. */
export const logTables = <DB extends EventLogTables>(db: LogDatabase<DB>): Kysely<EventLogTables> =>
  db as unknown as Kysely<EventLogTables>;
