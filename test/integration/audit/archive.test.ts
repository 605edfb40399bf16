import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { tokenStreamId } from '../../../src/domain/streams.js';
import { readArchiveBlock } from '../../../packages/audit-log/src/archive/read-block.js';
import { archivedBlocks } from '../../../src/audit-trail/archive/archive-index.js';
import { findLeaf, proveInclusion } from '../../../src/audit-trail/prove/tree-proofs.js';
import { TreeLeavesMissing } from '#audit-log/tree/tree-source.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { parseCheckpointText } from '#audit-log/transparency/checkpoint.js';
import { leafHash, verifyInclusion } from '#audit-log/transparency/merkle.js';
import { openNote, parseVerifierKey } from '#audit-log/transparency/signed-note.js';
import { decodeJwt } from 'jose';
import { checkLogTreeInDatabase } from '../../../src/audit-trail/prove/log-tree-evidence.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { tempDir } from '../../support/after-file.js';
import {
  currentPartition as partitionOfNow,
  recordIssuances as recordCopies,
  runArchive,
  untilNextPartition as untilNext,
} from '../../support/partitions.js';

/**
 * Issue 20's drill: tokens issued across three one-minute partitions of the log, the oldest
 * archived with the real CLI, and everything the archive promises checked from outside.
 */
const SPACE = 'space-archive';
const tsx = path.resolve('node_modules/.bin/tsx');
const run = promisify(execFile);
let database: TestDatabase;
let service: TestService;
let dir: string;
let archiveDir: string;
let keyFile: string;
let login: string;
let firstPartition: { name: string; starts_at: Date; ends_at: Date };
let archiveOutput: Array<Record<string, unknown>>;
let sizeBefore: number;
let tracedPositions: string[];
let eventsOfSpace: number;
let auditKey: Awaited<ReturnType<typeof loadAuditSigningKey>>;
let firstTokenJti: string;
/** Issuances recorded in the first partition besides the five tokens: four tiles' worth. */
let copiedJtis: string[];

const asUser = () => ({ authorization: `Bearer ${login}`, 'x-service-space-id': SPACE });
const settle = async () => {
  while ((await sealLog(database.db, 500)) > 0);
  for (const projection of PROJECTIONS) await catchUp(database.db, projection, 1000);
};
const logBytes = async () =>
  Number(
    (
      await database.pool.query<{ bytes: string }>(
        `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
      )
    ).rows[0]!.bytes,
  );
const untilNextPartition = () => untilNext(database.pool);
const currentPartition = () => partitionOfNow(database.pool);
const cli = (args: readonly string[], env: Record<string, string> = {}) =>
  run(tsx, args, { env: { ...process.env, ...env } }).then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
const verifyExport = async (text: string, archive: string) => {
  const file = path.join(dir, `export-${randomBytes(4).toString('hex')}.ndjson`);
  await writeFile(file, text);
  const result = await cli([
    'src/cli/verify-export.ts',
    `--key=${keyFile}`,
    `--archive-dir=${archive}`,
    file,
  ]);
  return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
};
const exportAll = async () =>
  (
    await fetch(
      `${service.baseUrl}/v1/audit/export?from=2000-01-01T00:00:00Z&to=${new Date(Date.now() + 60_000).toISOString()}`,
      { headers: asUser() },
    )
  ).text();
const recordIssuances = (spaceId: string, count: number) =>
  recordCopies(database.db, database.pool, spaceId, count);
/** The archive CLI's line for the partition holding the first tokens. */
const ours = () => archiveOutput.find((entry) => entry.partition === firstPartition.name)!;
/** A copy of the archive to tamper with. */
const copyOfArchive = async () => {
  const copy = await mkdtemp(path.join(dir, 'copy-'));
  await cp(archiveDir, copy, { recursive: true });
  return copy;
};

beforeAll(async () => {
  database = await createTestDatabase(10);
  await configurePartitioning(database.pool, { interval: '1 minute', ahead: 3 });
  dir = await tempDir('archive-');
  archiveDir = path.join(dir, 'archive');
  service = await startTestService(
    { EVENT_PARTITION_INTERVAL: '1 minute', ARCHIVE_DIR: archiveDir },
    undefined,
    { database, dataDir: dir },
  );
  login = await service.loginToken([SPACE]);
  auditKey = await loadAuditSigningKey(undefined, dir);
  let credential: Awaited<ReturnType<typeof createCredentialVia>> | undefined;
  // Three partitions with tokens in each; sealed and checkpointed as the projector does. The
  // first starts fresh, so the space's first event (its credential) is in it however long the
  // service took to start; what came before is in older partitions, archived too.
  for (let round = 0; round < 3; round += 1) {
    await untilNextPartition();
    const partition = await currentPartition();
    if (round === 0) firstPartition = partition;
    credential ??= await createCredentialVia(service, SPACE);
    for (let i = 0; i < 5; i += 1) {
      const token = await privateTokenVia(service, credential);
      if (round === 0 && i === 0) firstTokenJti = String(decodeJwt(token).jti);
    }
    // Enough for the space's archive file to hold several tiles (gzip members).
    if (round === 0) copiedJtis = await recordIssuances(SPACE, 1000);
    await settle();
    await signTreeHeads(database.db, (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
    );
  }
  const served = (await (
    await fetch(`${service.baseUrl}/v1/audit/checkpoints`, { headers: asUser() })
  ).json()) as { public_key: Record<string, unknown> };
  keyFile = path.join(dir, 'audit-key.jwk');
  await writeFile(keyFile, JSON.stringify(served.public_key));
  eventsOfSpace = Number(
    (
      await database.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM events WHERE space_id = $1`,
        [SPACE],
      )
    ).rows[0]!.n,
  );
  // A sampled request's trace beside an event of the archived partition and of a kept one, as
  // the append writes it (migration 042).
  tracedPositions = (
    await database.pool.query<{ position: string }>(
      `(SELECT global_position::text AS position FROM ${firstPartition.name} ORDER BY global_position LIMIT 1)
       UNION ALL (SELECT max(global_position)::text FROM events)`,
    )
  ).rows.map((row) => row.position);
  for (const position of tracedPositions) {
    await database.pool.query(
      `INSERT INTO event_traces (global_position, space_id, trace_id, span_id)
       SELECT global_position, space_id, decode(repeat('ab', 16), 'hex'), decode(repeat('cd', 8), 'hex')
       FROM events WHERE global_position = $1`,
      [position],
    );
  }
  sizeBefore = await logBytes();
  const { code, stdout, lines } = await runArchive(firstPartition.ends_at, {
    url: database.url,
    dataDir: dir,
    archiveDir,
  });
  archiveOutput = lines;
  expect(code, stdout).toBe(0);
  await settle();
}, 240_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('archiving a partition', () => {
  it('drops the partition after recording it, and the database is smaller', async () => {
    // Partitions older than the first token's (the setup may cross a minute) are archived too.
    expect(ours()).toMatchObject({ archived: true });
    for (const entry of archiveOutput) {
      expect(entry).toMatchObject({ archived: true });
      expect(String(entry.partition) <= firstPartition.name).toBe(true);
    }
    const { rows } = await database.pool.query<{ present: string | null }>(
      `SELECT to_regclass($1)::text AS present`,
      [firstPartition.name],
    );
    expect(rows[0]!.present).toBeNull();
    expect(await logBytes()).toBeLessThan(sizeBefore);
    const recorded = await database.pool.query<{ data: { partition: string; files: unknown[] } }>(
      `SELECT data FROM events WHERE event_type = 'events-archived' AND data->>'partition' = $1`,
      [firstPartition.name],
    );
    expect(recorded.rows).toHaveLength(1);
    expect(recorded.rows[0]!.data.partition).toBe(firstPartition.name);
    expect(recorded.rows[0]!.data.files).toEqual(ours().files);
  });

  it("drops the traces of the partition's events with it, keeping those of the events left", async () => {
    const { rows } = await database.pool.query<{ position: string }>(
      `SELECT global_position::text AS position FROM event_traces WHERE global_position = ANY($1)`,
      [tracedPositions],
    );
    expect(rows.map((row) => row.position)).toEqual([tracedPositions[1]]);
  });

  it('leaves an archive that, with the live export, verifies as one chain from the first event', async () => {
    // What was read since (audit reads are events too) is sealed and signed like the rest.
    await settle();
    await signTreeHeads(database.db, (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
    );
    const text = await exportAll();
    expect(text).toContain('"type":"archived"');
    const { code, verdict } = await verifyExport(text, archiveDir);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({
      ok: true,
      first_sequence: 1,
      checkpoints_verified: true,
    });
    // Every event of the space up to the checkpoint: the archived ones and the live ones.
    expect(verdict.events).toBeGreaterThanOrEqual(eventsOfSpace);
    expect(code).toBe(0);
  });

  it('fails, naming the file, when an archive file is edited, removed or added', async () => {
    const text = await exportAll();
    const file = (ours().files as Array<{ space_id: string; file: string }>).find(
      (entry) => entry.space_id === SPACE,
    )!.file;

    // Edited: one event's client changed, the manifest's hash left as it was.
    const edited = await copyOfArchive();
    const lines = gunzipSync(await readFile(path.join(edited, file)))
      .toString('utf8')
      .trim()
      .split('\n');
    const index = lines.findIndex((line) => line.includes('"type":"event"'));
    lines[index] = lines[index]!.replace(/"client_id":"[^"]+"/, '"client_id":"ci_someone_else"');
    await rm(path.join(edited, file), { force: true });
    await writeFile(path.join(edited, file), gzipSync(`${lines.join('\n')}\n`));
    expect((await verifyExport(text, edited)).verdict).toMatchObject({
      ok: false,
      reason: 'archive_file_altered',
      file,
    });

    // Edited, and its manifest's hash rewritten to match: the chain itself fails, at that file.
    const manifestFile = path.join(edited, file.split('/')[0]!, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as {
      files: Array<{ file: string; sha256: string }>;
    };
    const { createHash } = await import('node:crypto');
    manifest.files.find((entry) => entry.file === file)!.sha256 = createHash('sha256')
      .update(await readFile(path.join(edited, file)))
      .digest('hex');
    await rm(manifestFile, { force: true });
    await writeFile(manifestFile, JSON.stringify(manifest));
    const rehashed = await verifyExport(text, edited);
    expect(rehashed.verdict).toMatchObject({ ok: false, file });
    expect(rehashed.code).toBe(1);

    const missing = await copyOfArchive();
    await rm(path.join(missing, file));
    expect((await verifyExport(text, missing)).verdict).toMatchObject({
      ok: false,
      reason: 'archive_file_missing',
      file,
    });

    const extra = await copyOfArchive();
    const stray = `${file.split('/')[0]}/stray.ndjson.gz`;
    await writeFile(path.join(extra, stray), gzipSync('{}\n'));
    expect((await verifyExport(text, extra)).verdict).toMatchObject({
      ok: false,
      reason: 'archive_file_extra',
      file: stray,
    });
  });

  it('makes the audit API name the archive files for an archived range, never an empty page', async () => {
    const only = await fetch(
      `${service.baseUrl}/v1/audit/events?from=${firstPartition.starts_at.toISOString()}&to=${firstPartition.ends_at.toISOString()}`,
      { headers: asUser() },
    );
    expect(only.status).toBe(410);
    const problem = (await only.json()) as { code: string; archived: Array<{ file: string }> };
    expect(problem.code).toBe('range_archived');
    expect(problem.archived.map((range) => range.file)).toEqual([
      expect.stringContaining(firstPartition.name),
    ]);
    const spanning = await fetch(`${service.baseUrl}/v1/audit/events?from=2000-01-01T00:00:00Z`, {
      headers: asUser(),
    });
    expect(spanning.status).toBe(200);
    const page = (await spanning.json()) as { items: unknown[]; archived: unknown[] };
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.archived).toHaveLength(1);
  });

  it('keeps growing and signing the trees over what is left, and proves archived events from the archive files', async () => {
    const credential = await createCredentialVia(service, SPACE);
    await privateTokenVia(service, credential);
    await settle();
    await signTreeHeads(database.db, (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
    );
    const served = (await (
      await fetch(`${service.baseUrl}/v1/audit/tree-head`, { headers: asUser() })
    ).json()) as { tree_size: number; checkpoint: string; verifier_key: string };
    const size = served.tree_size;
    expect(size).toBeGreaterThan(eventsOfSpace);
    const head = parseCheckpointText(
      openNote(served.checkpoint, parseVerifierKey(served.verifier_key))!,
    );
    // The first token's issuance left with the first partition: its proof comes from the files.
    const archivedJti = firstTokenJti;
    const inclusion = await fetch(
      `${service.baseUrl}/v1/audit/proof/inclusion?jti=${archivedJti}&tree_size=${size}`,
      { headers: asUser() },
    );
    expect(inclusion.status).toBe(200);
    const body = (await inclusion.json()) as { leaf_index: number; entry: string; proof: string[] };
    expect(body.entry).toContain(archivedJti);
    expect(
      verifyInclusion(
        leafHash(Buffer.from(body.entry)),
        body.leaf_index,
        size,
        body.proof.map((hash) => Buffer.from(hash, 'base64')),
        head.root,
      ),
    ).toBe(true);
    // From size 2 the proof needs the first tile's leaves, some of them archived.
    const consistency = await fetch(
      `${service.baseUrl}/v1/audit/proof/consistency?from=2&to=${size}`,
      { headers: asUser() },
    );
    expect(consistency.status).toBe(200);
    // A process that cannot read the archive says so: 404 naming it, never a 500.
    const blind = await startTestService({ EVENT_PARTITION_INTERVAL: '1 minute' }, undefined, {
      database,
      dataDir: dir,
    });
    const refused = await fetch(`${blind.baseUrl}/v1/audit/proof/consistency?from=2&to=${size}`, {
      headers: asUser(),
    });
    expect(refused.status).toBe(404);
    expect(await refused.text()).toMatch(/ARCHIVE_DIR/);
    // One that should read it but finds the files gone: the leaf itself is unreadable, a 404.
    const emptyArchive = await tempDir('token-authority-no-archive-');
    const bereft = await startTestService(
      { EVENT_PARTITION_INTERVAL: '1 minute', ARCHIVE_DIR: emptyArchive },
      undefined,
      { database, dataDir: dir },
    );
    const missing = await fetch(
      `${bereft.baseUrl}/v1/audit/proof/inclusion?jti=${archivedJti}&tree_size=${size}`,
      { headers: asUser() },
    );
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(/ARCHIVE_DIR/);
  });

  it('keeps the log tree checkable over the database and the archive files, and names an edited or missing file', async () => {
    const check = (archive: string | undefined) =>
      checkLogTreeInDatabase(database.db, { publicKey: auditKey.publicKey, archiveDir: archive });
    const verdict = await check(archiveDir);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
    expect(verdict.ok && verdict.archivedSeals).toBeGreaterThan(0);
    expect(verdict.ok && verdict.headsChecked).toBeGreaterThan(0);
    // Archived seals are leaves of the tree: without the files the check cannot say ok.
    expect(await check(undefined)).toMatchObject({ ok: false, reason: 'archive_dir_missing' });

    const file = (ours().files as Array<{ space_id: string; file: string }>).find(
      (entry) => entry.space_id === SPACE,
    )!.file;
    const missing = await copyOfArchive();
    await rm(path.join(missing, file));
    expect(await check(missing)).toMatchObject({ ok: false, reason: 'archive_file_missing' });

    // Edited: one event's client changed; then also the hash the log recorded for the file,
    // rewritten by a superuser behind the triggers: the leaves no longer make the signed roots.
    const edited = await copyOfArchive();
    const lines = gunzipSync(await readFile(path.join(edited, file)))
      .toString('utf8')
      .trim()
      .split('\n');
    const index = lines.findIndex((line) => line.includes('"type":"event"'));
    lines[index] = lines[index]!.replace(/"client_id":"[^"]+"/, '"client_id":"ci_someone_else"');
    await rm(path.join(edited, file), { force: true });
    const bytes = gzipSync(`${lines.join('\n')}\n`);
    await writeFile(path.join(edited, file), bytes);
    expect(await check(edited)).toMatchObject({ ok: false, reason: 'archive_file_altered' });
    const { createHash } = await import('node:crypto');
    const client = await database.pool.connect();
    const recorded = await client.query<{ sha256: string }>(
      'SELECT sha256 FROM archived_ranges WHERE file = $1',
      [file],
    );
    const setHash = async (sha256: string) => {
      await client.query('SET session_replication_role = replica');
      try {
        await client.query('UPDATE archived_ranges SET sha256 = $1 WHERE file = $2', [
          sha256,
          file,
        ]);
      } finally {
        await client.query('RESET session_replication_role');
      }
    };
    try {
      await setHash(createHash('sha256').update(bytes).digest('hex'));
      const rehashed = await check(edited);
      expect(rehashed.ok).toBe(false);
      expect(['archive_file_altered', 'event_altered']).toContain(!rehashed.ok && rehashed.reason);
    } finally {
      await setHash(recorded.rows[0]!.sha256);
      client.release();
    }
    expect((await check(archiveDir)).ok).toBe(true);
  });

  it('fills the index pages of every partition, those made while it ran included', async () => {
    const { rows } = await database.pool.query<{
      partition: string;
      index: string;
      options: string[] | null;
    }>(
      `SELECT p.relname AS partition, c.relname AS index, c.reloptions AS options
         FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid
         JOIN pg_index x ON x.indrelid = p.oid JOIN pg_class c ON c.oid = x.indexrelid
         JOIN pg_am a ON a.oid = c.relam
        WHERE i.inhparent = 'events'::regclass AND a.amname IN ('btree', 'hash')`,
    );
    // Three or more partitions (the test made them), each with the log's six b-tree and hash
    // indexes (a BRIN index, migration 026, has no fill factor: its pages are ranges).
    expect(new Set(rows.map((row) => row.partition)).size).toBeGreaterThanOrEqual(3);
    expect(rows.length).toBeGreaterThanOrEqual(18);
    for (const row of rows) expect(row.options, row.index).toContain('fillfactor=100');
  });

  it('keeps every partition append-only, also when a statement names it directly', async () => {
    const { name } = await currentPartition();
    for (const statement of [
      `UPDATE ${name} SET metadata = metadata`,
      `DELETE FROM ${name}`,
      `TRUNCATE ${name}`,
    ]) {
      await expect(database.pool.query(statement), statement).rejects.toThrow(/append-only/);
    }
    // The service roles reach the log only through its parent table, which assigns position,
    // transaction and time: no partition grants them anything.
    const { rows } = await database.pool.query<{ granted: boolean }>(
      `SELECT bool_or(has_table_privilege(r, c.oid, p)) AS granted
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
              unnest(ARRAY['token_authority_api', 'token_authority_projector']) r,
              unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) p
        WHERE i.inhparent = 'events'::regclass`,
    );
    expect(rows[0]!.granted).toBe(false);
  });

  it('indexes each archive file: one gzip member per tile of the space tree, each event id and jti keyed', async () => {
    const file = (ours().files as Array<{ space_id: string; file: string }>).find(
      (entry) => entry.space_id === SPACE,
    ) as unknown as { file: string; events: number; last_sequence: number };
    const blocks = await archivedBlocks(database.db, SPACE, 1, Number.MAX_SAFE_INTEGER);
    expect(blocks.length).toBe(Math.ceil(file.last_sequence / 256));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    let offset = 0;
    for (const [i, block] of blocks.entries()) {
      expect(block).toMatchObject({
        file: file.file,
        first_sequence: i * 256 + 1,
        last_sequence: Math.min((i + 1) * 256, file.last_sequence),
        byte_offset: offset,
      });
      offset += block.byte_length;
    }
    // The members are the whole file, which gunzips as one stream (verify-export reads it so).
    expect(offset).toBe((await readFile(path.join(archiveDir, file.file))).length);
    const { rows } = await database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM archived_leaf_keys WHERE space_id = $1`,
      [SPACE],
    );
    // Every event's id, and every stream's first event (the copies' 1000 tokens among them).
    expect(rows[0]!.n).toBeGreaterThanOrEqual(file.events + copiedJtis.length);
  });

  it('proves an archived token from the members of the tiles its proof needs, never the rest of the archive', async () => {
    const served = (await (
      await fetch(`${service.baseUrl}/v1/audit/tree-head`, { headers: asUser() })
    ).json()) as { tree_size: number; checkpoint: string; verifier_key: string };
    const size = served.tree_size;
    const root = parseCheckpointText(
      openNote(served.checkpoint, parseVerifierKey(served.verifier_key))!,
    ).root;
    const which = { streamId: tokenStreamId(copiedJtis[400]!) };
    const real = await findLeaf(database.db, SPACE, which, 'space', archiveDir);
    if (!real || real === 'unsealed') throw new Error('the archived token has no leaf');
    const tileOfLeaf = Math.floor(real.index / 256);
    const lastTile = Math.floor((size - 1) / 256);
    expect(tileOfLeaf).toBeLessThan(lastTile);
    const blocks = await archivedBlocks(database.db, SPACE, 1, Number.MAX_SAFE_INTEGER);
    /** A copy of the archive with the bytes of every member but those of `keep` zeroed. */
    const zeroedBut = async (keep: ReadonlySet<number>) => {
      const copy = await copyOfArchive();
      const bytes = await readFile(path.join(copy, blocks[0]!.file));
      for (const [tile, block] of blocks.entries()) {
        if (!keep.has(tile))
          bytes.fill(0, block.byte_offset, block.byte_offset + block.byte_length);
      }
      await rm(path.join(copy, blocks[0]!.file));
      await writeFile(path.join(copy, blocks[0]!.file), bytes);
      return copy;
    };
    // Only the leaf's tile and the tree's last (partial) one are read: the rest is stored nodes.
    const sparse = await zeroedBut(new Set([tileOfLeaf, lastTile]));
    expect(blocks.length - 2).toBeGreaterThanOrEqual(2);
    const leaf = await findLeaf(database.db, SPACE, which, 'space', sparse);
    expect(leaf).toEqual(real);
    const proof = await proveInclusion(database.db, SPACE, real.index, size, sparse);
    expect(verifyInclusion(real.hash, real.index, size, proof, root)).toBe(true);
    // A member it needs, altered: refused as archived leaves it cannot read, never a wrong proof.
    const altered = await zeroedBut(new Set([lastTile]));
    await expect(findLeaf(database.db, SPACE, which, 'space', altered)).rejects.toThrow(
      TreeLeavesMissing,
    );
  });

  it("answers a made-up jti and another space's live jti with the same work: one probe of the space's index, no archive file read", async () => {
    const [elsewhere] = await recordIssuances('space-elsewhere', 1);
    const statements: string[] = [];
    const watched = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: database.pool }),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query.sql);
      },
    });
    // No archive folder at all: a lookup that read a file would fail.
    const nowhere = path.join(dir, 'no-archive-here');
    const work = async (jti: string) => {
      statements.length = 0;
      const leaf = await findLeaf(
        watched,
        SPACE,
        { streamId: tokenStreamId(jti) },
        'space',
        nowhere,
      );
      return { leaf, statements: [...statements] };
    };
    const madeUp = await work(randomUUID());
    const other = await work(elsewhere!);
    expect(madeUp.leaf).toBeUndefined();
    expect(other.leaf).toBeUndefined();
    expect(other.statements).toEqual(madeUp.statements);
    expect(madeUp.statements.filter((text) => text.includes('archived_leaf_keys'))).toHaveLength(1);
    expect(madeUp.statements.some((text) => text.includes('archived_blocks'))).toBe(false);
    // An archived one of this space is found by the same probe, and then its member is read.
    await expect(work(copiedJtis[0]!)).rejects.toThrow(TreeLeavesMissing);
  });

  it('reads a member within bounds on its lines and on what it keeps, and only as recorded', async () => {
    const [block] = await archivedBlocks(database.db, SPACE, 1, 1);
    expect(await readArchiveBlock(archiveDir, block!, () => true)).toHaveLength(256);
    const limits = { lineBytes: 1024 * 1024, keptBytes: 10_000 };
    expect(await readArchiveBlock(archiveDir, block!, () => true, limits)).toBe('too_large');
    expect(
      await readArchiveBlock(archiveDir, block!, () => true, { ...limits, lineBytes: 100 }),
    ).toBe('too_large');
    // What is not kept is not held: one line of the member, within the small bound.
    expect(
      await readArchiveBlock(archiveDir, block!, (line) => line.sequence === 3, limits),
    ).toHaveLength(1);
    expect(
      await readArchiveBlock(archiveDir, { ...block!, sha256: '0'.repeat(64) }, () => true),
    ).toBe('altered');
    expect(await readArchiveBlock(path.join(dir, 'nowhere'), block!, () => true)).toBe('missing');
  });
});
