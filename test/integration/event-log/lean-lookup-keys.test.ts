import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { queryAudit } from '../../../src/projections/audit-queries.js';
import { revocationList } from '../../../src/projections/credential-queries.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

// Issue 51, item 14: bytes per token. The client, customer and parent-jti lookups keyed each
// issued token by its text (a client id, a space and customer, a 36-character jti); many clients
// interleaving split the client index's pages in the middle. Keyed by a 4-byte hash (migration
// 040), they must cost a token little and still be what the audit queries and the revocation list
// read by.
const TOKENS = 6000;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(3);
  const { db } = database;
  // Public tokens as the service writes them: 40 clients interleaving in small transactions.
  for (let t = 0; t < TOKENS / 250; t += 1) {
    await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
      SELECT 'space-' || (g % 3), 'token-' || gen_random_uuid(), 1, gen_random_uuid(),
             'public-token-issued',
             jsonb_build_object('client_id', 'ci_' || md5((g % 40)::text),
                                'customer_id', 'customer-' || (g % 200),
                                'parent_jti', gen_random_uuid()::text,
                                'expires_at', extract(epoch FROM now())::bigint + 3600)
      FROM generate_series(${t * 250 + 1}::int, ${t * 250 + 250}::int) g`.execute(db);
  }
  // The rare client and the revoked parent every query below looks for.
  await sql`INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data)
    VALUES ('space-0', 'token-rare', 1, gen_random_uuid(), 'public-token-issued',
            jsonb_build_object('client_id', 'ci_rare', 'customer_id', 'customer-rare',
                               'parent_jti', 'parent-revoked',
                               'expires_at', extract(epoch FROM now())::bigint + 3600))`.execute(
    db,
  );
  await sql`INSERT INTO token_revocations (space_id, jti, client_id, token_kind, expires_at, revoked_at)
    VALUES ('space-0', 'parent-revoked', 'ci_rare', 'private', now() + interval '1 hour', now())`.execute(
    db,
  );
  await sql`VACUUM (ANALYZE) events`.execute(db);
}, 120_000);

/** The bytes of the partitions' indexes under `parent`, per token in the log. */
async function bytesPerToken(parent: string): Promise<number> {
  const { rows } = await database.pool.query<{ bytes: string }>(
    `SELECT sum(pg_relation_size(i.inhrelid)) AS bytes FROM pg_inherits i
      WHERE i.inhparent = $1::regclass`,
    [parent],
  );
  return Number(rows[0]!.bytes) / TOKENS;
}

/** The indexes (by their parent on `events`) the plans of the queries `run` sends read. */
async function indexesRead(run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const sent: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => void (event.level === 'query' && sent.push(event.query)),
  });
  await run(db);
  const names = new Set<string>();
  for (const query of sent) {
    const { rows } = await database.pool.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) ${query.sql}`,
      query.parameters as unknown[],
    );
    for (const [, name] of JSON.stringify(rows[0]!['QUERY PLAN']).matchAll(
      /"Index Name":"([^"]+)"/g,
    )) {
      const { rows: parents } = await database.pool.query<{ parent: string }>(
        `SELECT i.inhparent::regclass::text AS parent FROM pg_inherits i
          WHERE i.inhrelid = $1::regclass`,
        [name],
      );
      names.add(parents[0]?.parent ?? name!);
    }
  }
  return [...names];
}

describe('the log keys its client, customer and parent-jti lookups by hash', () => {
  it('costs each issued token half the bytes the text keys did', async () => {
    // Keyed by text, this log took 101 (client), 71 (space and customer) and 91 (jti) bytes a
    // token; by hash 57, 57 and 33 (pages of a small log split in the middle: a larger log's
    // entries are denser).
    expect(await bytesPerToken('events_client_idx')).toBeLessThan(70);
    expect(await bytesPerToken('events_customer_idx')).toBeLessThan(64);
    expect(await bytesPerToken('events_parent_jti_idx')).toBeLessThan(45);
  });

  it('reads an audit page by client and by customer through their indexes', async () => {
    const byClient = await indexesRead((db) =>
      queryAudit(db, { spaceId: 'space-0', clientId: 'ci_rare', limit: 50 }),
    );
    expect(byClient).toContain('events_client_idx');
    const byCustomer = await indexesRead((db) =>
      queryAudit(db, {
        spaceId: 'space-0',
        customerId: 'customer-rare',
        eventType: 'public-token-issued',
        limit: 50,
      }),
    );
    expect(byCustomer).toContain('events_customer_idx');
    const page = await queryAudit(database.db, {
      spaceId: 'space-0',
      clientId: 'ci_rare',
      limit: 50,
    });
    expect(page.entries.map((entry) => entry.customer_id)).toEqual(['customer-rare']);
  });

  it("finds a revoked private token's public tokens through the parent-jti index", async () => {
    const read = await indexesRead((db) => revocationList(db, 'space-0', 3600, 300));
    expect(read).toContain('events_parent_jti_idx');
    const list = await revocationList(database.db, 'space-0', 3600, 300);
    expect(JSON.stringify(list)).toContain('"rare"'); // the view's jti: the stream id after `token-`
  });
});
