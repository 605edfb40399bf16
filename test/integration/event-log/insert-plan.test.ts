import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertEvents, insertStatement, streamRows } from '#event-log/insert-events.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(5);
});

describe('the event INSERT', () => {
  it("probes the log's stream index per row even when the log is young, never hashing the whole log", async () => {
    // What the prepared statement is planned as, on a log the planner believes nearly empty (a
    // new deployment, before its first ANALYZE): the plan the connection then keeps.
    const { sql: text } = insertStatement([]).compile(database.db);
    // EXPLAIN (GENERIC_PLAN) is Postgres 16's; a prepared statement forced to its generic plan
    // shows the same on every version the service supports (14 on).
    const parameters = new Set(text.match(/\$\d+/g)).size;
    const client = await database.pool.connect();
    let rows: { 'QUERY PLAN': string }[];
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE young_log_insert AS ${text}`);
      ({ rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE young_log_insert(${Array(parameters).fill('NULL').join(', ')})`,
      ));
    } finally {
      await client.query('DEALLOCATE ALL').catch(() => undefined);
      await client.query('RESET plan_cache_mode').catch(() => undefined);
      client.release();
    }
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/hashed SubPlan/);
    expect(plan).not.toMatch(/Seq Scan on events/);
    // A probe of the stream index per row, as each major prints it: "Bitmap Index Scan on …"
    // (15, 18) or "Index Scan using … on …" (17).
    expect(plan).toMatch(/Index Scan (on|using) events_\w+_stream_id_idx/);
  });

  it('is prepared once per connection and then only bound: no parsing or planning per batch', async () => {
    await database.db.connection().execute(async (connection) => {
      const append = () =>
        insertEvents(
          connection,
          streamRows(
            'space-plan',
            `plan-${randomUUID()}`,
            [{ eventId: randomUUID(), type: 'test-event', data: {}, metadata: { actor: 'test' } }],
            0,
          ),
        );
      for (let i = 0; i < 3; i += 1) await append();
      const { rows } = await sql<{ name: string; calls: number }>`
        SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements`.execute(
        connection,
      );
      expect(rows).toContainEqual({ name: 'insert-events', calls: 3 });
    });
  });
});
