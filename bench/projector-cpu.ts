/**
 * `npm run bench:projector -- [--events=20000] [--spaces=20]`
 *
 * The projector's CPU per token: appends `--events` private-token-issued events over `--spaces`
 * spaces to a fresh embedded Postgres, then runs the projector in this process (every view, the
 * sealer, one signing of tree heads at the end) from position zero until it has caught up, and
 * reports `process.cpuUsage()` over that run per event. Postgres's own CPU is not counted.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { loadAuditSigningKey } from '../src/audit-trail/audit-key.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { parseCommandLine } from '#settings/command-line.js';
import { kyselyOver } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { streams } from '../src/domain/streams.js';
import { PROJECTIONS } from '../src/projections/all.js';
import { startProjector } from '../src/projections/projector.js';
import { startBenchDatabase } from './database.js';

const { values } = parseCommandLine(
  'Usage: npm run bench:projector -- [--events=<n>] [--spaces=<n>]',
  {
    events: { type: 'string', default: '20000' },
    spaces: { type: 'string', default: '20' },
  },
);
const total = Number(values.events);
const spaces = Number(values.spaces);
const log = (message: string) => process.stderr.write(`[projector] ${message}\n`);

const database = await startBenchDatabase('token-authority-projector-cpu-');
try {
  await migrate(database.pool);
  const db = kyselyOver(database.pool);
  const key = await loadAuditSigningKey(undefined, database.dataDir);
  log(`appending ${total} events over ${spaces} spaces`);
  const issuedAt = new Date();
  for (let i = 0; i < total; i += 1) {
    const jti = randomUUID();
    await appendToStream(db, {
      spaceId: `space-${i % spaces}`,
      stream: streams.token(jti),
      events: [
        {
          eventId: randomUUID(),
          type: 'private-token-issued',
          data: {
            client_id: 'ci_bench',
            audience: 'storefront.api.local',
            jti,
            issued_at: issuedAt.toISOString(),
            expires_at: new Date(issuedAt.getTime() + 3_600_000).toISOString(),
          },
          metadata: { actor: 'client:ci_bench', request_id: randomUUID() },
        },
      ],
    });
  }
  log('projecting from position zero');
  const before = process.cpuUsage();
  const projector = startProjector({
    db,
    url: database.postgres.url,
    projections: PROJECTIONS,
    batchSize: 1000,
    pollIntervalMs: 50,
    logger: pino({ level: 'warn' }),
    seal: true,
    settleMs: 0,
    checkpoints: {
      intervalMs: 3_600_000,
      signTreeHead: (treeId, size, root) =>
        signTreeHead(key, treeOrigin('https://bench.test', treeId), size, root),
    },
  });
  for (;;) {
    const { rows } = await database.pool.query<{ behind: number }>(
      'SELECT coalesce(max(events_behind), 0)::int AS behind FROM dashboard_projector_lag',
    );
    if (rows[0]!.behind === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Stopping signs the heads once, as a projector does at shutdown.
  await projector.stop();
  const used = process.cpuUsage(before);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    `Projector CPU per token: ${((cpuSeconds * 1000) / total).toFixed(3)} ms (${cpuSeconds.toFixed(2)} s of CPU for ${total.toLocaleString('en-US')} events over ${spaces} spaces, from position zero until caught up; Postgres not counted).`,
  );
} finally {
  await database.stop();
}
