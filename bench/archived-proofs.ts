/**
 * `npx tsx bench/archived-proofs.ts [--events=150000]`
 *
 * What an inclusion proof over archived history costs (issue 40, 1): records `--events` token
 * issuances in one space of a fresh embedded Postgres (one-minute partitions), seals them, archives
 * their partitions into a folder, records a few live tokens in another space, then starts a fresh
 * process that answers proofs as an API process does (findLeaf and proveInclusion with
 * ARCHIVE_DIR) and reports, for a made-up jti, another space's live jti and a real archived one:
 * the time of one, the longest the event loop was held while six ran at once, and the process's
 * resident memory before and at its peak.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { parseCommandLine } from '#settings/command-line.js';
import { connect } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { configurePartitioning } from '#event-log/partitions.js';
import { insertEvents, streamRows } from '#event-log/insert-events.js';
import { archivePartitions } from '../src/audit-trail/archive/archive.js';
import { recordArchive } from '../src/commands/archive/record.js';
import { sealLog } from '../src/audit-trail/seal/sealer.js';
import { findLeaf, proveInclusion, sealedTreeSize } from '../src/audit-trail/prove/tree-proofs.js';
import { PROJECTIONS } from '../src/projections/all.js';
import { catchUp } from '../src/projections/batches.js';
import { startBenchDatabase } from './database.js';

const { values } = parseCommandLine('Usage: npx tsx bench/archived-proofs.ts [--events=<n>]', {
  events: { type: 'string', default: '150000' },
  measure: { type: 'string' },
  dir: { type: 'string' },
  jtis: { type: 'string' },
});
const SPACE = 'bench-space';
const OTHER = 'bench-other';
const log = (message: string) => process.stderr.write(`[archived-proofs] ${message}\n`);
const token = (jti: string) => `token-${jti}`;
const issuance = (jti: string) => ({
  eventId: randomUUID(),
  type: 'private-token-issued',
  data: { client_id: 'ci_bench', audience: 'storefront.api.local', iat: 1, exp: 2 },
  metadata: { actor: 'client:ci_bench', client_ip: '127.0.0.1', jti },
});

if (values.measure) await measure(values.measure, values.dir!, JSON.parse(values.jtis!));
else await setUp(Number(values.events));

/** The bench's world, then the measuring process over it. */
async function setUp(total: number): Promise<void> {
  const database = await startBenchDatabase('token-authority-archived-proofs-');
  const handle = connect({
    url: database.postgres.url,
    poolSize: 4,
    idleInTransactionTimeoutMs: 600_000,
    applicationName: 'bench-archived-proofs',
  });
  try {
    await migrate(database.pool);
    await configurePartitioning(database.pool, { interval: '1 minute', ahead: 5 });
    log(`recording ${total} events`);
    const archived: string[] = [];
    for (let done = 0; done < total; done += 5000) {
      const jtis = Array.from({ length: Math.min(5000, total - done) }, () => randomUUID());
      archived.push(jtis[Math.floor(jtis.length / 2)]!);
      await insertEvents(
        handle.db,
        jtis.flatMap((jti) => streamRows(SPACE, token(jti), [issuance(jti)], 0)),
      );
    }
    log('sealing');
    while ((await sealLog(handle.db, 1000)) > 0);
    log('projecting');
    for (const projection of PROJECTIONS) await catchUp(handle.db, projection, 5000);
    const { rows } = await database.pool.query<{ ends_at: Date }>(
      `SELECT ends_at FROM event_partitions WHERE starts_at <= now() AND now() < ends_at`,
    );
    const before = rows[0]!.ends_at;
    log(`waiting for the partition to end (${before.toISOString()})`);
    await new Promise((resolve) => setTimeout(resolve, before.getTime() - Date.now() + 1000));
    const dir = path.join(database.dataDir, 'archive');
    log('archiving');
    const outcomes = await archivePartitions(handle.db, {
      before,
      dir,
      actor: 'operator:bench',
      origin: '127.0.0.1',
      requestId: null,
      record: recordArchive,
    });
    if (!outcomes.every((outcome) => outcome.archived)) throw new Error(JSON.stringify(outcomes));
    let bytes = 0;
    for (const folder of await readdir(dir)) {
      for (const name of await readdir(path.join(dir, folder))) {
        bytes += (await stat(path.join(dir, folder, name))).size;
      }
    }
    log(`${outcomes.length} partition(s) archived, ${(bytes / 1e6).toFixed(1)} MB of files`);
    const live = Array.from({ length: 6 }, () => randomUUID());
    await insertEvents(
      handle.db,
      live.flatMap((jti) => streamRows(OTHER, token(jti), [issuance(jti)], 0)),
    );
    while ((await sealLog(handle.db, 1000)) > 0);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        process.argv[1]!,
        `--measure=${database.postgres.url}`,
        `--dir=${dir}`,
        `--jtis=${JSON.stringify({ archived: archived.slice(0, 6), live })}`,
      ],
      { maxBuffer: 1 << 20 },
    );
    const results = JSON.parse(stdout) as Array<Record<string, string>>;
    console.log(`${total.toLocaleString('en')} archived events, ${(bytes / 1e6).toFixed(1)} MB gzipped

| inclusion proof for | one, p50 ms | six at once: wall ms | event loop held, max ms | RSS before / peak MB |
| --- | ---: | ---: | ---: | ---: |
${results.map((r) => `| ${r.which} | ${r.one} | ${r.six} | ${r.loop} | ${r.rss} |`).join('\n')}`);
  } finally {
    await handle.close();
    await database.stop();
  }
}

/** As an API process answers: a fresh process, ARCHIVE_DIR readable. */
async function measure(
  url: string,
  dir: string,
  jtis: { archived: string[]; live: string[] },
): Promise<void> {
  const handle = connect({
    url,
    poolSize: 8,
    idleInTransactionTimeoutMs: 600_000,
    applicationName: 'bench-archived-proofs-api',
  });
  const size = await sealedTreeSize(handle.db, SPACE);
  const prove = async (jti: string) => {
    const leaf = await findLeaf(handle.db, SPACE, { streamId: token(jti) }, 'space', dir);
    if (leaf && leaf !== 'unsealed') {
      await proveInclusion(handle.db, SPACE, leaf.index, size, dir);
    }
    return leaf;
  };
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  const results: Array<Record<string, string>> = [];
  const cases = [
    { which: 'a made-up jti', jtis: jtis.archived.map(() => randomUUID()) },
    { which: "another space's live jti", jtis: jtis.live },
    { which: 'an archived jti', jtis: jtis.archived },
  ];
  // Warm the pool and the prepared statements, as a running process would be.
  await prove(randomUUID());
  for (const { which, jtis: asked } of cases) {
    const one: number[] = [];
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    for (const jti of asked) {
      const started = performance.now();
      const leaf = await prove(jti);
      one.push(performance.now() - started);
      if ((which === 'an archived jti') !== Boolean(leaf)) throw new Error(`${which}: ${jti}`);
    }
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const started = performance.now();
    await Promise.all(asked.map(prove));
    const six = performance.now() - started;
    loop.disable();
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    one.sort((a, b) => a - b);
    results.push({
      which,
      one: one[Math.floor(one.length / 2)]!.toFixed(1),
      six: six.toFixed(0),
      loop: (loop.max / 1e6).toFixed(1),
      rss: `${mb(rssBefore)} / ${mb(peak)}`,
    });
  }
  await handle.close();
  process.stdout.write(JSON.stringify(results));
}
