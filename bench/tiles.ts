/**
 * `npm run bench:tiles -- [--events=100000] [--monitors=50]`
 *
 * What the public log tiles cost (issue 67): records `--events` events in a fresh embedded
 * Postgres, seals them and signs a log head as the projector does, then calls the tile route's
 * handler (no HTTP: `npm run bench`'s Koa ceiling bounds that part) and reports
 *   - cold: every level-0 tile built once (events read, hashed, checked against the stored root);
 *   - warm: the same tiles again, from the process's tile cache;
 *   - level 1: the stored roots, one range read, uncached;
 *   - the cache's hit rate for `--monitors` monitors each following the log from a random earlier
 *     size to the head (what a fleet of tlog-tiles clients asks), misses told by the queries run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { parseCommandLine } from '#settings/command-line.js';
import { insertEvents, streamRows } from '#event-log/insert-events.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { tilePath } from '#audit-log/transparency/tile-path.js';
// int8 columns as numbers, as the service parses them.
import '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema.js';
import { sealLog } from '../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../src/audit-trail/seal/tree-head-signing.js';
import { loadAuditSigningKey } from '../src/audit-trail/audit-key.js';
import { uuidv7 } from '../src/domain/ports.js';
import { auditTileRoutes } from '../src/http/routes/audit-tiles.js';
import { startBenchDatabase } from './database.js';

const { values } = parseCommandLine(
  'Usage: npm run bench:tiles -- [--events=<n>] [--monitors=<n>]',
  {
    events: { type: 'string', default: '100000' },
    monitors: { type: 'string', default: '50' },
  },
);
const total = Number(values.events);
const monitors = Number(values.monitors);
const log = (message: string) => process.stderr.write(`[tiles] ${message}\n`);

const database = await startBenchDatabase('token-authority-tiles-');
let queries = 0;
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: database.pool }),
  log: () => void (queries += 1),
});
try {
  await migrate(database.pool);
  log(`recording ${total} events`);
  for (let done = 0; done < total; done += 5000) {
    const rows = Array.from({ length: Math.min(5000, total - done) }, () =>
      streamRows(
        `space-${done % 7}`,
        `token-${randomUUID()}`,
        [
          {
            eventId: uuidv7(),
            type: 'private-token-issued',
            data: { client_id: 'ci_bench', audience: 'storefront.api.local', iat: 1, exp: 2 },
            metadata: { actor: 'client:ci_bench', client_ip: '127.0.0.1' },
          },
        ],
        0,
      ),
    );
    await insertEvents(db, rows.flat());
  }
  log('sealing and signing');
  while ((await sealLog(db, 1000)) > 0);
  const auditKey = await loadAuditSigningKey(undefined, await mkdtemp(path.join(tmpdir(), 'ak-')));
  const issuer = 'https://tokens.bench';
  await signTreeHeads(db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin(issuer, treeId), size, root),
  );
  // The API's clock a day on: the head is published.
  const clock = { now: () => Date.now() + 86_400_000 };
  const routes = () =>
    auditTileRoutes({ clock }, db, { AUDIT_CHECKPOINT_INTERVAL_SECONDS: 60, policy: '' });
  const handlerOf = (all: ReturnType<typeof routes>) => {
    const route = all.find((r) => r.path === '/audit/log/tile/*tile')!;
    return async (tile: string) => {
      const ctx = {
        path: `/audit/log/tile/${tile}`,
        params: { tile },
        set: () => undefined,
      } as unknown as Parameters<typeof route.handle>[0];
      await route.handle(ctx, undefined as never);
      return (ctx as unknown as { body: Buffer }).body;
    };
  };
  const full = Math.floor(total / 256);
  const level0 = Array.from({ length: full }, (_, n) =>
    tilePath({ level: 0, index: BigInt(n), width: 256 }),
  );
  const timed = async (paths: readonly string[], read: (tile: string) => Promise<Buffer>) => {
    const started = performance.now();
    let next = 0;
    // Four at a time, as concurrent monitors would ask.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < paths.length) await read(paths[next++]!);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { perSecond: paths.length / seconds, msEach: (seconds * 1000) / paths.length };
  };
  const read = handlerOf(routes());
  await read(level0[0]!); // the published head read once
  const cold = await timed(level0, read);
  const warm = await timed([...level0, ...level0, ...level0], read);
  const level1 = Array.from({ length: Math.max(1, Math.floor(full / 256)) }, (_, n) =>
    tilePath({ level: 1, index: BigInt(n), width: 256 > full ? full : 256 }),
  );
  // Level 1 uncached: a fresh process's tile cache for each read (its head read first).
  const roots: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const fresh = handlerOf(routes());
    await fresh(level0[0]!);
    const started = performance.now();
    await fresh(level1[i % level1.length]!);
    roots.push(performance.now() - started);
  }
  const rootMs = roots.sort((a, b) => a - b)[10]!;

  // Monitors, each from a random earlier size to the head: the tiles that cover the new leaves.
  const follower = handlerOf(routes());
  await follower(level0[0]!);
  let asked = 0;
  const before = queries;
  for (let m = 0; m < monitors; m += 1) {
    const from = Math.floor(Math.random() * full);
    for (let n = from; n < full; n += 1) {
      await follower(level0[n]!);
      asked += 1;
    }
  }
  // A level-0 miss runs three queries (seals, events, the stored root); a hit none.
  const misses = (queries - before) / 3;
  const hitRate = 1 - misses / asked;
  const f = (value: number) => Math.round(value).toLocaleString('en');
  console.log(`| events | level-0 tiles | cold: tiles/s (ms each) | warm: tiles/s | level 1 uncached: ms each (p50) | monitors' requests | cache hit rate |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| ${f(total)} | ${f(full)} | ${f(cold.perSecond)} (${cold.msEach.toFixed(2)}) | ${f(warm.perSecond)} | ${rootMs.toFixed(2)} | ${f(asked)} | ${(hitRate * 100).toFixed(1)}% |`);
} finally {
  // The Kysely instance rides the run's pool, which stop() ends.
  await database.stop();
}
