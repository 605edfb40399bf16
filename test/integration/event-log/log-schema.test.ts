import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrateFiles } from '../../../src/db/migrate.js';
import { EVENT_LOG_MIGRATIONS, migrateEventLog } from '#event-log/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

/**
 * Issue 66, item 4: the event log owns its tables (packages/event-log/src/schema.ts). The
 * service's migrations built them before the package held them: over that history the package's
 * first migration is recorded without running (no lock taken on a live log, no operator's change
 * undone), and applied alone it makes the same log (the store on it: packages/event-log/test/
 * on-postgres.test.ts). A change to these
 * objects in a service migration would make the two differ here: it belongs in the package.
 */
const LOG_TABLES = [
  'events',
  'event_partitions',
  'event_partitioning',
  'event_traces',
  'stream_digests',
];

/** What a schema is made of, each object by name with its definition (grants left out). */
async function catalog(pool: pg.Pool, tables?: readonly string[]) {
  const rows = async (text: string) =>
    (await pool.query<{ name: string; def: string }>(text, tables ? [tables] : [])).rows;
  // Partitions come and go with time; the tables that hold them are what a migration makes.
  const tableFilter = tables
    ? `c.relname = ANY($1)`
    : `c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND c.relname NOT IN ('event_log_migrations', 'schema_migrations')`;
  const columns = await rows(`
    SELECT c.relname || '.' || a.attname AS name,
           format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
             || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
             || CASE a.attidentity WHEN 'a' THEN ' IDENTITY ALWAYS' WHEN 'd' THEN ' IDENTITY' ELSE '' END AS def
    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE ${tableFilter} ORDER BY 1`);
  // NOT NULL is a column's (above): Postgres 18 names those constraints after their history.
  const constraints = await rows(`
    SELECT c.relname || '.' || k.conname AS name, pg_get_constraintdef(k.oid) AS def
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
    WHERE ${tableFilter} AND k.contype <> 'n' ORDER BY 1`);
  const indexes = await rows(`
    SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
    WHERE ${tableFilter} ORDER BY 1`);
  const triggers = await rows(`
    SELECT c.relname || '.' || t.tgname AS name, pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text AS def
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE ${tableFilter} AND NOT t.tgisinternal ORDER BY 1`);
  const functions = (
    await pool.query<{ name: string; def: string }>(`
      SELECT p.proname AS name, pg_get_functiondef(p.oid) AS def FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`)
  ).rows;
  // Who may do what: the service's roles are its own, so only a run over history compares them.
  const grants = await rows(`
    SELECT c.relname AS name, coalesce(c.relacl::text, '') || ' owner ' || c.relowner::regrole::text AS def
    FROM pg_class c WHERE ${tableFilter}
    UNION ALL
    SELECT p.proname || '()', coalesce(p.proacl::text, '') || ' owner ' || p.proowner::regrole::text
    FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`);
  const byName = (list: { name: string; def: string }[]) =>
    Object.fromEntries(list.map((row) => [row.name, row.def]));
  return {
    columns: byName(columns),
    constraints: byName(constraints),
    indexes: byName(indexes),
    triggers: byName(triggers),
    functions: byName(functions),
    grants: byName(grants),
  };
}

let history: TestDatabase;
let alone: TestDatabase;

beforeAll(async () => {
  [history, alone] = await Promise.all([
    createTestDatabase(2, { empty: true }),
    createTestDatabase(2, { empty: true }),
  ]);
}, 120_000);

describe("the event log's own migration (issue 66, item 4)", () => {
  it("over the service's history, is recorded without running: every table, index, trigger, function and grant as it was", async () => {
    await migrateFiles(history.pool);
    const before = await catalog(history.pool);
    expect(Object.keys(before.functions)).toContain('ensure_event_partitions');
    expect(await migrateEventLog(history.pool)).toEqual(EVENT_LOG_MIGRATIONS.map((m) => m.name));
    expect(await catalog(history.pool)).toEqual(before);
    // The service's runner found it applied and applies nothing twice.
    expect(await migrate(history.pool)).toEqual([]);
    // A service login's readiness check reads the log's record too (npm start runs as one).
    const client = await history.pool.connect();
    try {
      await client.query('SET ROLE token_authority_api');
      const { rows } = await client.query('SELECT name FROM event_log_migrations');
      expect(rows.map((row: { name: string }) => row.name)).toEqual(['001_event_log']);
    } finally {
      await client.query('RESET ROLE');
      client.release();
    }
  });

  it('applied alone, makes the log the service has: the same tables, keys, indexes, triggers and functions', async () => {
    expect(await migrateEventLog(alone.pool)).toEqual(['001_event_log']);
    const { grants: _own, ...own } = await catalog(alone.pool, LOG_TABLES);
    const { grants: _service, ...service } = await catalog(history.pool, LOG_TABLES);
    expect(own.columns).toEqual(service.columns);
    expect(own.constraints).toEqual(service.constraints);
    expect(own.triggers).toEqual(service.triggers);
    // The service adds lookups of its own on the log; every index of the log's is one of them.
    expect(Object.keys(own.indexes).length).toBeGreaterThanOrEqual(6);
    for (const [name, def] of Object.entries(own.indexes))
      expect(service.indexes[name], name).toBe(def);
    // Nothing but the log's functions, each defined as the service's history left it.
    expect(Object.keys(own.functions).sort()).toEqual([
      'ensure_event_partitions',
      'event_partition_floor',
      'events_are_append_only',
      'fill_log_indexes',
    ]);
    for (const [name, def] of Object.entries(own.functions))
      expect(service.functions[name], name).toBe(def);
    // Partitions made ahead, and a second run applies nothing.
    const { rows } = await alone.pool.query('SELECT count(*)::int AS n FROM event_partitions');
    expect(rows[0].n).toBeGreaterThanOrEqual(3);
    expect(await migrateEventLog(alone.pool)).toEqual([]);
  });
});
