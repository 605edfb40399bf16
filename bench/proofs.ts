/**
 * `npm run bench:proofs -- [--events=10000]`
 *
 * What the transparency log costs and answers at a given size: records `--events` events in one
 * space of a fresh embedded Postgres, seals them as the projector does (the log's and the space's
 * Merkle trees), and reports the sealer's CPU per event, the tree's stored bytes per event, and the
 * size and latency of inclusion and consistency proofs (each verified) at that size.
 */
import { randomUUID } from 'node:crypto';
import { parseCommandLine } from '#settings/command-line.js';
import { connect } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { insertEvents, streamRows } from '#event-log/insert-events.js';
import { sealLog } from '../src/audit-trail/seal/sealer.js';
import { overSpaceTree } from '../src/audit-trail/seal/space-tree.js';
import {
  findLeaf,
  proveConsistency,
  proveInclusion,
} from '../src/audit-trail/prove/tree-proofs.js';
import { treeRoot, verifyConsistency, verifyInclusion } from '#audit-log/transparency/merkle.js';
import { uuidv7 } from '../src/domain/ports.js';
import { startBenchDatabase } from './database.js';

const { values } = parseCommandLine('Usage: npm run bench:proofs -- [--events=<n>]', {
  events: { type: 'string', default: '10000' },
});
const total = Number(values.events);
const SPACE = 'bench-space';
const log = (message: string) => process.stderr.write(`[proofs] ${message}\n`);
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

const database = await startBenchDatabase('token-authority-proofs-');
const handle = connect({
  url: database.postgres.url,
  poolSize: 4,
  idleInTransactionTimeoutMs: 600_000,
  applicationName: 'bench-proofs',
});
try {
  await migrate(database.pool);
  log(`recording ${total} events`);
  const ids: string[] = [];
  const eventIds: string[] = [];
  for (let done = 0; done < total; done += 5000) {
    const rows = Array.from({ length: Math.min(5000, total - done) }, (_, i) => {
      const jti = randomUUID();
      // Event ids as the service mints them (UUIDv7, src/domain/ports.ts), so the lookup by event
      // id meets the ids it meets in production.
      const eventId = uuidv7();
      if ((done + i) % Math.max(1, Math.floor(total / 200)) === 0) {
        ids.push(jti);
        eventIds.push(eventId);
      }
      return streamRows(
        SPACE,
        `token-${jti}`,
        [
          {
            eventId,
            type: 'private-token-issued',
            data: { client_id: 'ci_bench', audience: 'storefront.api.local', iat: 1, exp: 2 },
            metadata: { actor: 'client:ci_bench', client_ip: '127.0.0.1' },
          },
        ],
        0,
      );
    });
    await insertEvents(handle.db, rows.flat());
  }
  log('sealing');
  const cpu = process.cpuUsage();
  // Rounds of PROJECTOR_BATCH_SIZE (1000) events, as the projector seals.
  while ((await sealLog(handle.db, 1000)) > 0);
  const sealCpu = process.cpuUsage(cpu);
  const { rows } = await database.pool.query<{ bytes: string }>(
    `SELECT pg_total_relation_size('merkle_nodes') AS bytes`,
  );
  const root = await overSpaceTree(handle.db, SPACE, total, (t) => treeRoot(t, total));
  const inclusion: number[] = [];
  const finding: number[] = [];
  let inclusionHashes = 0;
  for (const jti of ids) {
    const started = performance.now();
    const leaf = await findLeaf(handle.db, SPACE, { streamId: `token-${jti}` });
    if (!leaf || leaf === 'unsealed') throw new Error(`no leaf for ${jti}`);
    finding.push(performance.now() - started);
    const proof = await proveInclusion(handle.db, SPACE, leaf.index, total);
    inclusion.push(performance.now() - started);
    inclusionHashes = Math.max(inclusionHashes, proof.length);
    if (!verifyInclusion(leaf.hash, leaf.index, total, proof, root)) throw new Error('bad proof');
  }
  // The same proofs asked for by event id (GET /v1/audit/proof/inclusion?event_id=), found through
  // migration 026's BRIN index as autovacuum left it summarised (autosummarize).
  const { rows: brin } = await database.pool.query<{ bytes: string; unsummarised: string }>(
    `SELECT coalesce(sum(pg_relation_size(i.indexrelid)), 0) AS bytes,
            coalesce(sum(brin_summarize_new_values(i.indexrelid)), 0) AS unsummarised
     FROM pg_inherits h JOIN pg_index i ON i.indexrelid = h.inhrelid
     WHERE h.inhparent = to_regclass('events_event_id_brin_idx')`,
  );
  log(
    `event id index: ${(Number(brin[0]?.bytes ?? 0) / total).toFixed(3)} bytes per event; ${brin[0]?.unsummarised ?? 0} of its ranges were not yet summarised by autovacuum (now they are)`,
  );
  const byEventId: number[] = [];
  for (const eventId of eventIds) {
    const started = performance.now();
    const leaf = await findLeaf(handle.db, SPACE, { eventId });
    if (!leaf || leaf === 'unsealed') throw new Error(`no leaf for event ${eventId}`);
    await proveInclusion(handle.db, SPACE, leaf.index, total);
    byEventId.push(performance.now() - started);
  }
  const consistency: number[] = [];
  let consistencyHashes = 0;
  for (let i = 1; i <= 50; i += 1) {
    const from = Math.max(1, Math.floor((total * i) / 51));
    const started = performance.now();
    const proof = await proveConsistency(handle.db, SPACE, from, total);
    const older = await overSpaceTree(handle.db, SPACE, from, (t) => treeRoot(t, from));
    consistency.push(performance.now() - started);
    consistencyHashes = Math.max(consistencyHashes, proof.length);
    if (!verifyConsistency(from, total, proof, older, root)) throw new Error('bad proof');
  }
  const ms = (value: number) => value.toFixed(1);
  log(
    `finding the leaf (by jti): p50 ${ms(percentile(finding, 0.5))} ms, p99 ${ms(percentile(finding, 0.99))} ms`,
  );
  log(
    `inclusion proof by event id: p50 ${ms(percentile(byEventId, 0.5))} ms, p99 ${ms(percentile(byEventId, 0.99))} ms`,
  );
  console.log(`| events | sealer CPU per event | tree bytes per event | inclusion proof: hashes, p50 / p99 ms | consistency proof: hashes, p50 / p99 ms |
| ---: | ---: | ---: | ---: | ---: |
| ${total.toLocaleString('en')} | ${((sealCpu.user + sealCpu.system) / 1000 / total).toFixed(3)} ms | ${(Number(rows[0]!.bytes) / total).toFixed(2)} | ${inclusionHashes} (${inclusionHashes * 32} bytes), ${ms(percentile(inclusion, 0.5))} / ${ms(percentile(inclusion, 0.99))} | ${consistencyHashes} (${consistencyHashes * 32} bytes), ${ms(percentile(consistency, 0.5))} / ${ms(percentile(consistency, 0.99))} |`);
} finally {
  await handle.close();
  await database.stop();
}
