import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { Kysely, PostgresDialect } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { loadAuditSigningKey, type AuditKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHead, treeOrigin, treeVerifierKey } from '#audit-log/transparency/tree-head.js';
import { findLeaf } from '../../../src/audit-trail/prove/tree-proofs.js';
import { logTreeSize } from '../../../src/audit-trail/seal/log-tree.js';
import type { Database } from '../../../src/db/schema.js';
import { uuidv7 } from '../../../src/domain/ports.js';
import { insertEvents, streamRows } from '#event-log/insert-events.js';
import { parseCheckpointText } from '#audit-log/transparency/checkpoint.js';
import { leafHash, verifyConsistency, verifyInclusion } from '#audit-log/transparency/merkle.js';
import { openNote, parseVerifierKey } from '#audit-log/transparency/signed-note.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { createTestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

const SPACE = 'proofs-space';
const run = promisify(execFile);
const PROOF_READS_PER_MINUTE = 40;
/** The API's clock: real time unless a test pins it (the log tree's heads are published by it). */
const clock = { pinned: undefined as number | undefined, now: () => clock.pinned ?? Date.now() };
let service: TestService;
let auditKey: AuditKey;
let credential: { client_id: string; client_secret: string };
let vkey: string;
let asUser: Record<string, string>;

/** What the projector does: seal what settled, then sign the heads (tree heads included). */
async function settle() {
  while ((await sealLog(service.database.db, 500)) > 0);
  await signTreeHeads(service.database.db, (spaceId, size, root) =>
    signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, spaceId), size, root),
  );
}
const get = async (url: string, headers = asUser) => {
  const response = await fetch(`${service.baseUrl}${url}`, { headers });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

beforeAll(async () => {
  service = await startTestService(
    { AUDIT_PROOF_READS_PER_MINUTE: String(PROOF_READS_PER_MINUTE) },
    undefined,
    undefined,
    { clock },
  );
  auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  credential = await createCredentialVia(service, SPACE);
  asUser = {
    authorization: `Bearer ${await service.loginToken([SPACE])}`,
    'x-service-space-id': SPACE,
  };
  // Known independently of any answer: the audit key's public half, named for the space's origin.
  vkey = treeVerifierKey(auditKey, treeOrigin(service.config.TOKEN_ISSUER, SPACE));
});

describe("a space's transparency log, questioned one token at a time", () => {
  it('proves that a token was issued and recorded: its entry is in the tree the signed head names', async () => {
    const tokens = [];
    for (let i = 0; i < 5; i += 1) tokens.push(await privateTokenVia(service, credential));
    await settle();
    const head = await get('/v1/audit/tree-head');
    expect(head.status).toBe(200);
    expect(head.body.verifier_key).toBe(vkey);
    const text = openNote(String(head.body.checkpoint), parseVerifierKey(vkey));
    expect(text).toBeDefined();
    const checkpoint = parseCheckpointText(text!);
    expect(checkpoint).toMatchObject({
      origin: 'token-authority.test/audit/space/proofs-space',
      size: 6,
    });

    const jti = String(decodeJwt(tokens[2]!).jti);
    const proof = await get(`/v1/audit/proof/inclusion?jti=${jti}`);
    expect(proof.status).toBe(200);
    const entry = String(proof.body.entry);
    expect(JSON.parse(entry)).toMatchObject({
      event_type: 'private-token-issued',
      stream_id: `token-${jti}`,
    });
    expect(proof.body.leaf_hash).toBe(leafHash(Buffer.from(entry)).toString('base64'));
    const byId = await get(
      `/v1/audit/proof/inclusion?event_id=${(JSON.parse(entry) as { event_id: string }).event_id}`,
    );
    expect(byId.body).toMatchObject({ leaf_index: proof.body.leaf_index, entry });
    const path_ = (proof.body.proof as string[]).map((hash) => Buffer.from(hash, 'base64'));
    expect(
      verifyInclusion(
        leafHash(Buffer.from(entry)),
        Number(proof.body.leaf_index),
        checkpoint.size,
        path_,
        checkpoint.root,
      ),
    ).toBe(true);
    expect(
      verifyInclusion(
        leafHash(Buffer.from(entry.replace(jti, 'x'))),
        Number(proof.body.leaf_index),
        checkpoint.size,
        path_,
        checkpoint.root,
      ),
    ).toBe(false);

    // The same check offline, by the command a reviewer runs; an edited entry fails it.
    const file = path.join(service.dataDir, 'inclusion.json');
    await writeFile(file, JSON.stringify(proof.body));
    const ok = await run(process.execPath, [
      '--import',
      'tsx',
      'src/cli/verify-proof.ts',
      file,
      `--key=${vkey}`,
    ]);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, proof: 'inclusion', tree_size: 6 });
    await writeFile(
      file,
      JSON.stringify({
        ...proof.body,
        entry: entry.replace('private-token-issued', 'public-token-issued'),
      }),
    );
    const edited = (await run(process.execPath, [
      '--import',
      'tsx',
      'src/cli/verify-proof.ts',
      file,
      `--key=${vkey}`,
    ]).catch((error: { code: number; stdout: string }) => error)) as {
      code?: number;
      stdout: string;
    };
    expect(edited.code).toBe(1);
    expect(JSON.parse(edited.stdout)).toMatchObject({ ok: false });
  });

  it('proves that nothing recorded before an earlier head was changed by a later one', async () => {
    const before = await get('/v1/audit/tree-head');
    for (let i = 0; i < 7; i += 1) await privateTokenVia(service, credential);
    await settle();
    const after = await get('/v1/audit/tree-head');
    const key = parseVerifierKey(vkey);
    const older = parseCheckpointText(openNote(String(before.body.checkpoint), key)!);
    const newer = parseCheckpointText(openNote(String(after.body.checkpoint), key)!);
    expect(newer.size).toBeGreaterThan(older.size);
    const proof = await get(`/v1/audit/proof/consistency?from=${older.size}&to=${newer.size}`);
    expect(proof.status).toBe(200);
    const hashes = (proof.body.proof as string[]).map((hash) => Buffer.from(hash, 'base64'));
    expect(verifyConsistency(older.size, newer.size, hashes, older.root, newer.root)).toBe(true);
    expect(verifyConsistency(older.size, newer.size, hashes, Buffer.alloc(32, 1), newer.root)).toBe(
      false,
    );
  });

  it('records every proof asked for as an audit read, and answers bad questions with a 4xx that says why', async () => {
    expect((await get('/v1/audit/proof/inclusion')).status).toBe(400);
    expect(
      (await get('/v1/audit/proof/inclusion?jti=a&event_id=0190a0a0-0000-7000-8000-000000000000'))
        .status,
    ).toBe(400);
    const unknown = await get('/v1/audit/proof/inclusion?jti=no-such-token');
    expect(unknown.status).toBe(404);
    expect((await get('/v1/audit/proof/consistency?from=5&to=2')).status).toBe(400);
    expect((await get('/v1/audit/proof/consistency?from=1&to=999999')).status).toBe(400);
    const reads = await get('/v1/audit/events?event_type=audit-log-read&limit=100');
    const kinds = (
      reads.body.items as Array<{ data?: { kind?: string } } & Record<string, unknown>>
    ).map((item) => JSON.stringify(item));
    expect(kinds.some((item) => item.includes('inclusion-proof'))).toBe(true);
    expect(kinds.some((item) => item.includes('consistency-proof'))).toBe(true);
    expect(kinds.some((item) => item.includes('tree-head'))).toBe(true);
  });
});

describe('proof reads cannot tie up the database (issue 40, item 2)', () => {
  it('records a proof read when asked, before the lookup: a read that never finishes is on the trail', async () => {
    const token = await privateTokenVia(service, credential);
    await settle();
    const { rows } = await service.database.pool.query<{ event_id: string }>(
      'SELECT event_id FROM events WHERE stream_id = $1',
      [`token-${String(decodeJwt(token).jti)}`],
    );
    const eventId = rows[0]!.event_id;
    const recorded = async () =>
      (
        await service.database.pool.query(
          `SELECT 1 FROM events WHERE event_type = 'audit-log-read'
           AND data->'query'->>'event_id' = $1`,
          [eventId],
        )
      ).rowCount ?? 0;
    const locker = await service.database.pool.connect();
    let answer: Promise<{ status: number }> | undefined;
    try {
      // The seals are read after the event is found: while they are locked, the lookup waits.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE event_seals IN ACCESS EXCLUSIVE MODE');
      answer = get(`/v1/audit/proof/inclusion?event_id=${eventId}`);
      expect(await waitUntil(recorded, (n) => n > 0, { timeoutMs: 5000 })).toBe(1);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    expect([200, 503]).toContain((await answer).status);
  });

  it("bounds each user's proof reads: past AUDIT_PROOF_READS_PER_MINUTE, 429 with Retry-After, and another user keeps theirs", async () => {
    const looping = {
      authorization: `Bearer ${await service.loginToken([SPACE], 'looping-auditor')}`,
      'x-service-space-id': SPACE,
    };
    const answers = await Promise.all(
      Array.from({ length: PROOF_READS_PER_MINUTE + 5 }, () => get('/v1/audit/tree-head', looping)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(PROOF_READS_PER_MINUTE);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toContain('"audit-proofs"');
    expect((await get('/v1/audit/proof/inclusion?jti=no-such-token', looping)).status).toBe(429);
    expect((await get('/v1/audit/tree-head')).status).toBe(200);
  });
});

/**
 * The whole numbers an error body states, outside its random request id (whose hex once held the
 * live size's digits and failed this test by chance).
 */
const numbersIn = (body: Record<string, unknown>): number[] => {
  const { request_id: _requestId, ...stated } = body;
  return (JSON.stringify(stated).match(/\d+/g) ?? []).map(Number);
};

describe("the log tree tells no tenant the others' volume (issue 40, item 7)", () => {
  it('serves log-tree heads only as published on the schedule, and names no live size in an error', async () => {
    const other = await createCredentialVia(service, 'proofs-other-space');
    const asLog = async () => {
      const head = await get('/v1/audit/tree-head?tree=log');
      return { status: head.status, size: head.body.tree_size };
    };
    try {
      // The window the API is in began before anything below was signed.
      clock.pinned = Date.now();
      const published = await asLog();
      for (let i = 0; i < 3; i += 1) await privateTokenVia(service, credential);
      await settle();
      expect(await asLog()).toEqual(published);
      for (let i = 0; i < 41; i += 1) await privateTokenVia(service, other);
      await settle();
      expect(await asLog()).toEqual(published);

      const live = await logTreeSize(service.database.db);
      const beyond = await get('/v1/audit/proof/consistency?tree=log&from=1&to=999999');
      expect(beyond.status).toBe(400);
      expect(numbersIn(beyond.body)).not.toContain(live);
      expect((await get(`/v1/audit/proof/consistency?tree=log&from=1&to=${live}`)).status).toBe(
        400,
      );
      const jti = String(decodeJwt(await privateTokenVia(service, credential)).jti);
      await settle();
      const sized = await get(`/v1/audit/proof/inclusion?tree=log&jti=${jti}&tree_size=${live}`);
      expect(sized.status).toBe(400);
      expect(numbersIn(sized.body)).not.toContain(live);

      // Once the windows they were signed in are over, the heads are served and proven against.
      clock.pinned = Date.now() + 10 * service.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000;
      const now = await logTreeSize(service.database.db);
      expect(await asLog()).toEqual({ status: 200, size: now });
      const proof = await get(`/v1/audit/proof/inclusion?tree=log&jti=${jti}`);
      expect(proof.body).toMatchObject({ tree_size: now, checkpoint: expect.any(String) });
      const grown = await get(`/v1/audit/proof/consistency?tree=log&from=1&to=${now}`);
      expect(grown.status).toBe(200);
    } finally {
      clock.pinned = undefined;
    }
  });

  it("proves a space tree's event at a size no head was signed at: 200, checkpoint null (docs/api.md)", async () => {
    const jti = String(decodeJwt(await privateTokenVia(service, credential)).jti);
    await privateTokenVia(service, credential);
    await settle();
    const latest = await get(`/v1/audit/proof/inclusion?jti=${jti}`);
    const size = Number(latest.body.leaf_index) + 1;
    const { rowCount } = await service.database.pool.query(
      'SELECT 1 FROM merkle_checkpoints WHERE space_id = $1 AND tree_size = $2',
      [SPACE, size],
    );
    expect(rowCount).toBe(0);
    const unsigned = await get(`/v1/audit/proof/inclusion?jti=${jti}&tree_size=${size}`);
    expect(unsigned.status).toBe(200);
    expect(unsigned.body).toMatchObject({ tree_size: size, checkpoint: null });
  });
});

/** A query plan node of EXPLAIN (FORMAT JSON), as far as counting rows goes. */
interface PlanNode {
  readonly 'Relation Name'?: string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** Rows a plan's scans of the log (any partition) looked at: returned, filtered or rechecked. */
function logRowsRead(node: PlanNode): number {
  const own = /^events($|_)/.test(node['Relation Name'] ?? '')
    ? (node['Actual Rows'] +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)) *
      node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + logRowsRead(child), 0);
}

describe('a proof by event id is an index probe (issue 40, item 2)', () => {
  it("finds the event through migration 026's index: a few pages, never the space's events", async () => {
    const database = await createTestDatabase(2);
    const space = `big-${randomUUID()}`;
    const total = 20_000;
    const ids: string[] = [];
    const row = (spaceId: string, eventId: string) =>
      streamRows(
        spaceId,
        `token-${randomUUID()}`,
        [{ eventId, type: 'private-token-issued', data: { client_id: 'ci_x' }, metadata: {} }],
        0,
      );
    for (let done = 0; done < total; done += 5000) {
      await insertEvents(
        database.db,
        Array.from({ length: 5000 }, () => {
          const id = uuidv7();
          ids.push(id);
          return row(space, id);
        }).flat(),
      );
    }
    const target = ids[total - 100]!;
    // Unique per space only: another space's event of the same id, written first, hides nothing;
    // an id of another shape (the archive's random UUIDs) is found as well.
    const stray = randomUUID();
    await insertEvents(database.db, [...row('elsewhere', target), ...row(space, stray)]);
    // What autovacuum does with autosummarize, and its statistics.
    await database.pool.query(
      `SELECT brin_summarize_new_values(i.indexrelid) FROM pg_inherits h
       JOIN pg_index i ON i.indexrelid = h.inhrelid
       WHERE h.inhparent = to_regclass('events_event_id_brin_idx')`,
    );
    await database.pool.query('ANALYZE events');

    const queries: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const watched = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: database.pool }),
      log: (event) => {
        if (event.level === 'query') queries.push(event.query);
      },
    });
    expect(await findLeaf(watched, space, { eventId: target })).toBe('unsealed');
    expect(await findLeaf(watched, space, { eventId: stray })).toBe('unsealed');
    expect(await findLeaf(watched, space, { eventId: uuidv7() })).toBeUndefined();
    let read = 0;
    for (const query of queries) {
      const { rows } = await database.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
        [...query.parameters],
      );
      read += logRowsRead(rows[0]!['QUERY PLAN'][0]!.Plan);
    }
    // Three lookups; each reads the few ranges of pages whose ids could hold it.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(total / 4);
    // Each new partition's indexes are filled as before: the BRIN index takes no fillfactor.
    await expect(
      database.pool.query('SELECT fill_log_indexes(partition_name) FROM event_partitions'),
    ).resolves.toBeDefined();
  });
});
