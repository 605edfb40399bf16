import type { Kysely, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';

/** Statement texts to prepare on each connection, and the name each is prepared under. */
const names = new Map<string, string>();

/**
 * Marks a statement run for every token (the event INSERT) to be prepared once per connection:
 * Postgres then parses and plans it once instead of on every call; on a partitioned log the
 * planning alone was a fifth of the INSERT's time (issue 23). A prepared plan is replanned by
 * Postgres when a partition is made or dropped. Only for statements whose best plan does not
 * depend on their values (a generic plan is kept).
 */
export function prepareOnEveryConnection(name: string, text: string): void {
  if (names.get(text) === name) return;
  if ([...names.values()].includes(name)) throw new Error(`statement ${name} has two texts`);
  names.set(text, name);
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Makes `client` run a statement marked by {@link prepareOnEveryConnection} under its name (pg
 * prepares it on the connection's first use). Kysely sends text and values; everything else
 * passes through untouched.
 */
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

/**
 * Runs `query` prepared under `name` on whichever connection `db` lends (see
 * {@link prepareOnEveryConnection}): for statements whose text never changes, only their values.
 */
export async function executePrepared<DB, Row>(
  db: Kysely<DB>,
  name: string,
  query: RawBuilder<Row>,
): Promise<QueryResult<Row>> {
  const compiled = query.compile(db);
  prepareOnEveryConnection(name, compiled.sql);
  return db.executeQuery(compiled);
}
