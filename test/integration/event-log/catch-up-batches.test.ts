import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { nextLogRange } from '#event-log/log-range.js';
import { readLog } from '#event-log/read-log.js';
import type { LogPosition } from '#event-log/types.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

// A follower behind a bulk transaction finds each batch by walking the log's order, reading about
// a batch of rows, however many settled events lie beyond it. This log is shaped so the planner
// estimates one row past a checkpoint inside the newest transaction, which is what makes a sort
// of everything after the checkpoint look cheapest: small transactions, then a bulk one, ANALYZEd.
const BULK = 100_000;
const BATCH = 2000;

let database: TestDatabase;
let inBulk: LogPosition;
let beforeBulk: LogPosition;
let inUnseen: LogPosition;
beforeAll(async () => {
  database = await createTestDatabase(3);
  const { db } = database;
  for (let t = 0; t < 50; t += 1) {
    await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
      SELECT 'space-' || (g % 7), 'client-' || ${t} || '-' || g, 1, gen_random_uuid(),
             'private-token-issued', jsonb_build_object('client_id', 'c' || (g % 13))
      FROM generate_series(1, 200) g`.execute(db);
  }
  await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
    SELECT 'space-' || (g % 7), 'bulk-' || g, 1, gen_random_uuid(),
           'private-token-issued', jsonb_build_object('client_id', 'c' || (g % 13))
    FROM generate_series(1, ${BULK}::int) g`.execute(db);
  await sql`ANALYZE events`.execute(db);
  // And one the statistics have not seen yet, as right after an import.
  await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
    SELECT 'space-' || (g % 7), 'unseen-' || g, 1, gen_random_uuid(),
           'private-token-issued', jsonb_build_object('client_id', 'c' || (g % 13))
    FROM generate_series(1, ${BULK}::int) g`.execute(db);
  const at = async (stream: string): Promise<LogPosition> => {
    const { rows } = await sql<{ transaction_id: string; global_position: string }>`
      SELECT transaction_id::text, global_position FROM events WHERE stream_id = ${stream}`.execute(
      db,
    );
    return {
      transactionId: rows[0]!.transaction_id,
      globalPosition: Number(rows[0]!.global_position),
    };
  };
  inBulk = await at('bulk-20000');
  beforeBulk = await at('client-49-200');
  inUnseen = await at('unseen-20000');
}, 120_000);

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** How each follower finds its next batch: the projector and the sealer, the deliverer of all. */
const FINDERS = {
  'the projector (nextLogRange)': async (db: Kysely<Database>, after: LogPosition) =>
    (await nextLogRange(db, after, BATCH))?.count,
  'the sealer and the deliverer (readLog)': async (db: Kysely<Database>, after: LogPosition) =>
    (await readLog(db, { after, limit: BATCH })).events.length,
};

/** The queries `find` sends for one batch. */
async function batchQueries(
  find: (db: Kysely<Database>, after: LogPosition) => Promise<number | undefined>,
  after: LogPosition,
): Promise<CompiledQuery[]> {
  const sent: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query);
    },
  });
  expect(await find(db, after)).toBe(BATCH);
  return sent;
}

/**
 * Rows the scans of the plans returned as the queries ran again (EXPLAIN ANALYZE runs them), in
 * one transaction of one session: a setting one query makes holds for the next, as it did.
 */
async function rowsScanned(queries: CompiledQuery[]): Promise<number> {
  const client = await database.pool.connect();
  let scanned = 0;
  const walk = (node: PlanNode) => {
    if (/Scan/.test(node['Node Type'])) scanned += node['Actual Rows'] * node['Actual Loops'];
    node.Plans?.forEach(walk);
  };
  try {
    await client.query('BEGIN');
    for (const query of queries.filter((q) => /^\s*select\b/i.test(q.sql))) {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
        query.parameters as unknown[],
      );
      walk(rows[0]!['QUERY PLAN'][0].Plan);
    }
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
  return scanned;
}

describe('the batch finder, on a log whose statistics favour sorting the backlog', () => {
  const cases = Object.entries(FINDERS).flatMap(([name, find]) => [
    [name, 'inside the newest transaction analyzed', find, () => inBulk] as const,
    [name, 'just before a bulk transaction', find, () => beforeBulk] as const,
    [name, 'inside one the statistics have not seen', find, () => inUnseen] as const,
  ]);
  it.each(cases)('%s reads at most twice a batch of rows %s', async (_, __, find, after) => {
    const queries = await batchQueries(find, after());
    expect(queries.some((query) => /\bfrom "?events\b/i.test(query.sql))).toBe(true);
    expect(await rowsScanned(queries)).toBeLessThanOrEqual(2 * BATCH);
  });

  it("leaves the planner as it was for the rest of the caller's transaction", async () => {
    const setting = await database.db.transaction().execute(async (trx) => {
      expect((await nextLogRange(trx, inBulk, BATCH))?.count).toBe(BATCH);
      return (await sql<{ on: string }>`SELECT current_setting('enable_sort') AS on`.execute(trx))
        .rows[0]!.on;
    });
    expect(setting).toBe('on');
  });
});
