import type { Kysely, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';

/** Statement texts to prepare on each connection, and the name each is prepared under. */
const names = new Map<string, string>();

/**
 * Marks a per-token statement to be prepared once per connection: on a partitioned log planning was
 * a fifth of the INSERT. Only for statements whose generic plan is best.
 */
export function prepareOnEveryConnection(name: string, text: string): void {
  if (names.get(text) === name) return;
  if ([...names.values()].includes(name)) throw new Error(`statement ${name} has two texts`);
  names.set(text, name);
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** Makes `client` run marked statements prepared under their names; all else passes through. */
export function runMarkedStatementsPrepared(client: pg.ClientBase): void {
  const query = client.query.bind(client) as Query;
  const named: Query = (config, values, callback) => {
    if (typeof config === 'string' && Array.isArray(values)) {
      const name = names.get(config);
      if (name !== undefined) return query({ name, text: config, values }, callback);
    }
    return query(config, values, callback);
  };
  client.query = named as typeof client.query;
}

/** Runs `query` prepared as `name` (see {@link prepareOnEveryConnection}); fixed text only. */
export async function executePrepared<DB, Row>(
  db: Kysely<DB>,
  name: string,
  query: RawBuilder<Row>,
): Promise<QueryResult<Row>> {
  const compiled = query.compile(db);
  prepareOnEveryConnection(name, compiled.sql);
  return db.executeQuery(compiled);
}
