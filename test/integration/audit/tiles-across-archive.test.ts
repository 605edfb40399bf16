import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey, type AuditKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { tempDir } from '../../support/after-file.js';
import { buildGoTiles } from '../../support/go-tiles.js';
import {
  currentPartition,
  recordIssuances,
  runArchive,
  untilNextPartition,
} from '../../support/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 67's last "done when": a monitor that knows nothing but the public URL follows the log
 * across an archive run. The oldest partition (more than a tile of leaves) is archived between
 * two checkpoints; the monitor (Go's tlog, and one written here from C2SP tlog-tiles) proves the
 * new checkpoint consistent with the one it held, and finds the log's minimum index as the spec
 * says a pruned log shows it: tiles wholly below it answer an error, every tile above is served.
 */
const SPACE = 'space-tiles-archive';
const clock = { pinned: undefined as number | undefined, now: () => clock.pinned ?? Date.now() };
let database: TestDatabase;
let service: TestService;
let dir: string;
let archiveDir: string;
let auditKey: AuditKey;
let goTiles: Awaited<ReturnType<typeof buildGoTiles>>;
/** What the monitor kept from its first visit. */
const before = {
  go: {} as { status: number; out: Record<string, unknown> },
  checkpointFile: '',
  size: 0,
  root: '',
  tiles: new Map<string, Buffer>(),
};
let archived: Array<Record<string, unknown>>;
/** The archive run before A was under a signed head. */
let refused: Array<Record<string, unknown>>;
/** Partition A's name. */
let partitionA: string;
/** A second API on the same database, started after the archive run. */
let replica: TestService;
let published = 0;
/** The first leaf the log still serves, as the monitor found it. */
let minimumIndex = 0;

const prefix = (base = service.baseUrl) => `${base}/audit/log`;
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const tileName = (level: number, index: number, width = 256) =>
  `${level}/${String(index).padStart(3, '0')}${width < 256 ? `.p/${width}` : ''}`;

async function sealAndProject() {
  while ((await sealLog(database.db, 500)) > 0);
  for (const projection of PROJECTIONS) await catchUp(database.db, projection, 1000);
}

/** Seal, project and sign as the projector does, then move the API past the head's window. */
async function settleAndPublish() {
  await sealAndProject();
  await signTreeHeads(database.db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
  );
  published += 1;
  clock.pinned =
    Date.now() + 10 * published * service.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000;
}

/** The log's key, from its published policy: all the monitor is given is the URL. */
async function logKeyFrom(base: string): Promise<string> {
  const policy = await (await fetch(`${prefix(base)}/policy`)).text();
  const line = policy.split('\n').find((l) => l.startsWith('log '));
  return line!.split(' ')[1]!;
}

async function checkpoint(base = service.baseUrl) {
  const text = await (await fetch(`${prefix(base)}/checkpoint`)).text();
  const [, size, root] = text.split('\n');
  return { text, size: Number(size), root: root! };
}

/**
 * The root of the first `size` leaves, from tiles alone (RFC 9162 §2.1.1, written from the RFC):
 * a full, aligned tile's root from level 1 (so leaves below the minimum index are never needed),
 * smaller ranges from level-0 leaves.
 */
async function rootFromTiles(base: string, size: number): Promise<Buffer> {
  const fullTiles = Math.floor(size / 256);
  const level1 = fullTiles
    ? Buffer.from(
        await (await fetch(`${prefix(base)}/tile/${tileName(1, 0, fullTiles)}`)).arrayBuffer(),
      )
    : Buffer.alloc(0);
  const edge =
    size % 256
      ? Buffer.from(
          await (
            await fetch(`${prefix(base)}/tile/${tileName(0, fullTiles, size % 256)}`)
          ).arrayBuffer(),
        )
      : Buffer.alloc(0);
  const at = (tile: Buffer, i: number) => tile.subarray(i * 32, i * 32 + 32);
  const mth = (lo: number, hi: number): Buffer => {
    if (hi - lo === 256 && lo % 256 === 0) return at(level1, lo / 256);
    if (hi - lo === 1) return at(edge, lo - fullTiles * 256);
    let k = 1;
    while (k * 2 < hi - lo) k *= 2;
    return sha256(Buffer.from([1]), mth(lo, lo + k), mth(lo + k, hi));
  };
  return mth(0, size);
}

beforeAll(async () => {
  goTiles = await buildGoTiles();
  database = await createTestDatabase(10);
  await configurePartitioning(database.pool, { interval: '1 minute', ahead: 3 });
  dir = await tempDir('tiles-archive-');
  archiveDir = path.join(dir, 'archive');
  const env = { EVENT_PARTITION_INTERVAL: '1 minute', ARCHIVE_DIR: archiveDir };
  service = await startTestService(env, undefined, { database, dataDir: dir }, { clock });
  auditKey = await loadAuditSigningKey(undefined, dir);

  // Partition A: to be archived, more than a tile of leaves (and what came before, older still).
  await untilNextPartition(database.pool);
  const first = await currentPartition(database.pool);
  partitionA = first.name;
  const credential = await createCredentialVia(service, SPACE);
  for (let i = 0; i < 3; i += 1) await privateTokenVia(service, credential);
  await recordIssuances(database.db, database.pool, SPACE, 300);
  await sealAndProject();
  // Partition B: kept, more than a tile, so the head the monitor holds ends in leaves kept. A
  // is sealed and projected, but under no signed head yet: not archived.
  await untilNextPartition(database.pool);
  refused = await archiveBefore(first.ends_at);
  await settleAndPublish();
  for (let i = 0; i < 3; i += 1) await privateTokenVia(service, credential);
  await recordIssuances(database.db, database.pool, SPACE, 600);
  await settleAndPublish();

  // The monitor's first visit: the whole log, from leaf 0, by Go; every level-0 tile kept.
  const key = await logKeyFrom(service.baseUrl);
  const held = await checkpoint();
  before.size = held.size;
  before.root = held.root;
  before.checkpointFile = path.join(dir, 'held.checkpoint');
  await writeFile(before.checkpointFile, held.text);
  before.go = await goTiles([prefix(), key]);
  for (let n = 0; n * 256 < held.size; n += 1) {
    const name = tileName(0, n, Math.min(256, held.size - n * 256));
    const tile = await fetch(`${prefix()}/tile/${name}`);
    expect(tile.status, name).toBe(200);
    before.tiles.set(name, Buffer.from(await tile.arrayBuffer()));
  }

  // Partition C: the archive run takes A and everything older, then the log grows on.
  await untilNextPartition(database.pool);
  archived = await archiveBefore(first.ends_at);
  for (let i = 0; i < 3; i += 1) await privateTokenVia(service, credential);
  await settleAndPublish();
  // A replica that never cached a tile: what a load balancer may send the monitor to.
  replica = await startTestService(env, undefined, { database, dataDir: dir }, { clock });
}, 420_000);

/** The archive run's lines (test/support/partitions.ts). */
const archiveBefore = async (before: Date) =>
  (await runArchive(before, { url: database.url, dataDir: dir, archiveDir })).lines;

describe('a monitor follows the public log across an archive run (issue 67)', () => {
  it("read the whole log from leaf 0 before it (Go's tlog), with more than a tile to archive", () => {
    expect(before.go.out.reason).toBeUndefined();
    expect(before.go.out).toMatchObject({ ok: true, size: before.size });
    expect(before.size).toBeGreaterThan(3 * 256);
    // Tried while A was under no signed head of the log tree: refused, and the run stopped there
    // (an older partition, like the history's across a month's end, may be archived before it).
    expect(refused.at(-1)).toMatchObject({
      archived: false,
      reason: 'not_settled',
      detail: expect.stringContaining('signed head'),
    });
    expect(refused.filter((line) => line.archived).map((line) => line.partition)).not.toContain(
      partitionA,
    );
    expect(archived.length).toBeGreaterThan(0);
    for (const entry of archived)
      expect(entry, JSON.stringify(entry)).toMatchObject({ archived: true });
  });

  it('finds the minimum index on any replica: tiles below it answer 404 saying so, every one above is served unchanged', async () => {
    const now = await checkpoint(replica.baseUrl);
    expect(now.size).toBeGreaterThan(before.size);
    const statuses: number[] = [];
    for (let n = 0; n * 256 < now.size; n += 1) {
      const name = tileName(0, n, Math.min(256, now.size - n * 256));
      const tile = await fetch(`${prefix(replica.baseUrl)}/tile/${name}`);
      statuses.push(tile.status);
      if (tile.status === 404) {
        expect(await tile.json()).toMatchObject({
          detail: expect.stringContaining('minimum index'),
        });
        continue;
      }
      expect(tile.status, name).toBe(200);
      const kept = before.tiles.get(name);
      if (kept) expect(Buffer.from(await tile.arrayBuffer()).equals(kept), name).toBe(true);
    }
    const firstServed = statuses.indexOf(200);
    // Tile 0 went with partition A; from the first tile served on, no gap.
    expect(firstServed).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(firstServed).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(0, firstServed).every((status) => status === 404)).toBe(true);
    // The head the monitor held ends above the minimum index, as a retention policy keeps it.
    expect(firstServed * 256).toBeLessThanOrEqual(before.size);
    minimumIndex = firstServed * 256;
  });

  it("proves the new checkpoint consistent with the one it held, by Go's tlog, from the minimum index on", async () => {
    const key = await logKeyFrom(replica.baseUrl);
    const go = await goTiles([
      prefix(replica.baseUrl),
      key,
      before.checkpointFile,
      String(minimumIndex),
    ]);
    expect(go.out.reason).toBeUndefined();
    expect(go.out).toMatchObject({
      ok: true,
      consistent_with: before.size,
      inclusion_checked: [minimumIndex, Number(go.out.size) - 1],
    });
    expect(Number(go.out.size)).toBeGreaterThan(before.size);
  });

  it('and by a reader written from the spec: the held root and the new one both made from the tiles served now', async () => {
    const now = await checkpoint(replica.baseUrl);
    expect((await rootFromTiles(replica.baseUrl, before.size)).toString('base64')).toBe(
      before.root,
    );
    expect((await rootFromTiles(replica.baseUrl, now.size)).toString('base64')).toBe(now.root);
  });
});
