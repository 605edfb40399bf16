import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import type { Database } from '../../../src/db/schema.js';
import { nextBatch } from '../../../src/delivery/batch-reader.js';
import { nextLogRange, type LogRange } from '#event-log/log-range.js';
import { readLog } from '#event-log/read-log.js';
import type { LogPosition } from '#event-log/types.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

// Issue 56: a follower's batch inside a bulk transaction was estimated from the leading column of
// its row comparison (a quarter of the log) and read by a parallel scan of the whole partition.
// This log is shaped so the statistics say so: small transactions, then three bulk ones, the
// batch inside the first bulk one, ANALYZEd.
const BULK = 100_000;

let database: TestDatabase;
let inBulk: LogPosition;
beforeAll(async () => {
  database = await createTestDatabase(3);
  const { db } = database;
  for (let t = 0; t < 50; t += 1) {
    await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
      SELECT 'space-' || (g % 7), 'client-' || ${t} || '-' || g, 1, gen_random_uuid(),
             'private-token-issued', jsonb_build_object('client_id', 'c' || (g % 13))
      FROM generate_series(1, 200) g`.execute(db);
  }
  for (let b = 0; b < 3; b += 1) {
    await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
      SELECT 'space-' || (g % 7), 'bulk-' || ${b} || '-' || g, 1, gen_random_uuid(),
             'private-token-issued', jsonb_build_object('client_id', 'c' || (g % 13))
      FROM generate_series(1, ${BULK}::int) g`.execute(db);
  }
  await sql`ANALYZE events`.execute(db);
  // 20,000 events into the first bulk transaction.
  const { rows } = await sql<{ transaction_id: string; global_position: string }>`
    SELECT transaction_id::text, global_position FROM events WHERE stream_id = 'bulk-0-20000'`.execute(
    db,
  );
  inBulk = {
    transactionId: rows[0]!.transaction_id,
    globalPosition: Number(rows[0]!.global_position),
  };
}, 120_000);

/** Runs `follow` on a Kysely that records every query it sends, and returns those queries. */
async function queriesOf(follow: (db: Kysely<Database>) => Promise<unknown>) {
  const sent: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query') sent.push(event.query);
    },
  });
  await follow(db);
  return sent;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/** A batch's size: what a follower reads at once here. */
const BATCH = 1000;

/**
 * How a query's plan reads the partitions of the log that hold rows, where it reads them as a
 * set: a scan of the whole partition, or a bitmap sized by an estimate far above the batch (the
 * plan that turns into a scan as the log grows). An ordered index scan under a LIMIT stops at
 * the batch whatever it estimates.
 */
async function readAsMuchOfTheLog(query: CompiledQuery): Promise<string[]> {
  const { rows } = await database.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${query.sql}`,
    query.parameters as unknown[],
  );
  const populated = new Set(
    (
      await database.pool.query<{ relname: string }>(
        `SELECT relname FROM pg_class WHERE relname LIKE 'events%' AND reltuples > 1000`,
      )
    ).rows.map((row) => row.relname),
  );
  const found: string[] = [];
  const walk = (node: PlanNode) => {
    const type = node['Node Type'];
    if (populated.has(node['Relation Name'] ?? '')) {
      if (/Seq Scan/.test(type) || (/Bitmap/.test(type) && node['Plan Rows'] > 10 * BATCH)) {
        found.push(`${type} on ${node['Relation Name']}, estimating ${node['Plan Rows']} rows`);
      }
    }
    node.Plans?.forEach(walk);
  };
  walk(rows[0]!['QUERY PLAN'][0].Plan);
  return found;
}

async function expectEveryReadByIndex(queries: CompiledQuery[]) {
  const reads = queries.filter((query) =>
    /\bfrom "?(events|dashboard_projector_lag)"?\b/i.test(query.sql),
  );
  expect(reads.length).toBeGreaterThan(0);
  for (const query of reads) {
    expect({ sql: query.sql, scanned: await readAsMuchOfTheLog(query) }).toEqual({
      sql: query.sql,
      scanned: [],
    });
  }
}

describe('followers of the log, on a log whose statistics favour a scan', () => {
  it("the projector's views read a batch inside a bulk transaction by index", async () => {
    let range: LogRange | undefined;
    const queries = await queriesOf(async (db) => {
      await db
        .transaction()
        .execute(async (trx) => {
          range = await nextLogRange(trx, inBulk, BATCH);
          for (const projection of PROJECTIONS) await projection.applyRange(trx, range!);
          throw new RollBack();
        })
        .catch((error: unknown) => {
          if (!(error instanceof RollBack)) throw error;
        });
    });
    expect(range?.count).toBe(BATCH);
    await expectEveryReadByIndex(queries);
  });

  it('the sealer, the deliverer and the audit feed read their pages by index', async () => {
    const queries = await queriesOf(async (db) => {
      await readLog(db, { after: inBulk, limit: BATCH });
      await nextBatch(db, { after: inBulk, spaceId: null, limit: 500, scanLimit: 5000 });
      await nextBatch(db, { after: inBulk, spaceId: 'space-3', limit: 500, scanLimit: 5000 });
      const through = (await nextLogRange(db, inBulk, 5000))!.through;
      await readLog(db, { after: inBulk, through, limit: 500, spaceId: 'space-3' });
    });
    await expectEveryReadByIndex(queries);
  });

  it('the sealer seals the first 1,000 events of the log by index', async () => {
    const queries = await queriesOf((db) => sealLog(db, 1000));
    await expectEveryReadByIndex(queries);
  });
});

describe('the projector lag view (/metrics and the dashboard)', () => {
  it('reads at most 100,001 events past each checkpoint, by index', async () => {
    await sql`
      INSERT INTO projection_checkpoints (projection, transaction_id, global_position)
      VALUES ('rates', ${inBulk.transactionId}::xid8, ${inBulk.globalPosition})
      ON CONFLICT (projection) DO UPDATE
        SET transaction_id = excluded.transaction_id, global_position = excluded.global_position`.execute(
      database.db,
    );
    const view = sql`SELECT projection, events_behind::int AS behind FROM dashboard_projector_lag`;
    const lag = (await view.execute(database.db)).rows as { projection: string; behind: number }[];
    expect(lag).toContainEqual({ projection: 'rates', behind: 100_001 });
    expect(lag).toContainEqual({ projection: 'chain', behind: 100_001 });
    await expectEveryReadByIndex([view.compile(database.db)]);
  });
});

class RollBack extends Error {}
