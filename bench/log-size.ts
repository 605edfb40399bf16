/**
 * `npm run bench:log-size -- [--sizes=0,1000000] [--bulk=500000] [--duration=10] [--max-catch-up=1200]`
 *
 * How the cost grows with the log (issue 56). Starts a real Postgres (embedded) and the service
 * as `npm start` runs it, and node-oidc-provider beside it as the peer. At each size the log is
 * grown the way the service grows it (transactions of a group commit's size, UUIDv7 event ids,
 * a thousand spaces), and then measured: how long the projector and the sealer take to catch up,
 * private issuance against the peer in the same run, an inclusion proof's and an export's latency,
 * and bytes per token; last, a bulk transaction (a history import), the projector's and the
 * sealer's catch-up after it window by window, and issuance once they have caught up.
 */
import pg from 'pg';
import { decodeJwt } from 'jose';
import { parseCommandLine } from '#settings/command-line.js';
import { mintDevLoginToken } from '../src/crypto/login-tokens.js';
import { freePort } from '../src/net/free-port.js';
import { benchClient } from './client.js';
import { startBenchDatabase } from './database.js';
import { combinedRuns, load, warmUp, type LoadPlan, type Measured } from './load.js';
import { peerTokenRequest } from './peer-client.js';
import { startProcess, stopAll, waitFor } from './processes.js';
import { bytesPerToken } from './storage.js';
import { bulkCatchUp, caughtUp, describeCatchUp, secondsSince } from './catch-up.js';

const USAGE = `Usage: npm run bench:log-size -- [--sizes=<n,n,...>] [--bulk=<n>] [--duration=<s>]
       [--connections=<n>] [--group=<n>] [--repeat=<n>] [--max-catch-up=<s>]
Grows the log to each size and measures issuance against the peer, catch-up, proofs, exports and
bytes per token; then one bulk transaction of <bulk> events, the catch-up after it in 10 s windows
(for at most <max-catch-up> seconds) and issuance after it.`;
const { values } = parseCommandLine(USAGE, {
  sizes: { type: 'string', default: '0,1000000' },
  bulk: { type: 'string', default: '5000000' },
  'max-catch-up': { type: 'string', default: '1200' },
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '50' },
  // Events per transaction while growing: what a group commit holds under load.
  group: { type: 'string', default: '250' },
  repeat: { type: 'string', default: '2' },
});
const sizes = String(values.sizes)
  .split(',')
  .map((size) => Number(size));
const plan: LoadPlan = {
  durationSeconds: Number(values.duration),
  connections: Number(values.connections),
  warmupSeconds: 3,
};
const GROUP = Number(values.group);
const SPACES = 1000;
const AUDIENCE = 'storefront.api.local';
const log = (message: string) => process.stderr.write(`[log-size] ${message}\n`);

const database = await startBenchDatabase('token-authority-log-size-');
const { dataDir, postgres, pool } = database;
// Growing writes from four connections at once, as several API processes would.
const writers = new pg.Pool({ connectionString: postgres.url, max: 4 });
try {
  const [port, metricsPort, peerPort] = [await freePort(), await freePort(), await freePort()];
  startProcess('src/cli/start.ts', {
    DATABASE_URL: postgres.url,
    MIGRATION_DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_AUDIENCES: AUDIENCE,
    CLIENT_RATE_LIMIT_PER_MINUTE: '1000000000',
    SPACE_RATE_LIMIT_PER_MINUTE: '1000000000',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    HOST: '127.0.0.1',
  });
  startProcess('bench/peer-oidc-provider.ts', { PORT: String(peerPort) });
  const api = `http://127.0.0.1:${port}`;
  await waitFor(`${api}/healthz`);
  await waitFor(`http://127.0.0.1:${peerPort}/.well-known/openid-configuration`);
  const { privateRequest, privateToken } = await benchClient(api, dataDir, AUDIENCE);
  const peerRequest = peerTokenRequest(peerPort);
  const login = await mintDevLoginToken({
    dataDir,
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'bench',
    spaces: ['bench-space'],
    ttlSeconds: 7200,
  });
  const auditHeaders = { authorization: `Bearer ${login}`, 'x-service-space-id': 'bench-space' };
  const jti = String(decodeJwt(privateToken).jti);
  await warmUp(plan, privateRequest);
  await warmUp(plan, peerRequest);

  // The template every grown event copies: a private-token-issued event the service wrote.
  const template = (
    await pool.query<{ data: unknown; metadata: unknown }>(
      `SELECT data, metadata FROM events WHERE event_type = 'private-token-issued' LIMIT 1`,
    )
  ).rows[0]!;
  const hasUuidv7 = (
    await pool.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'uuidv7') AS found`,
    )
  ).rows[0]!.found;
  const newId = hasUuidv7 ? 'uuidv7()' : 'gen_random_uuid()';

  /** Appends `size` grown events, numbered from `offset`, in the transaction `client` is in. */
  const insertGrown = (client: pg.Pool | pg.PoolClient, offset: number, size: number) =>
    client.query(
      `INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data, metadata)
       SELECT 'grown-space-' || ((g + $1::bigint) % ${SPACES}), 'token-' || gen_random_uuid(), 1,
              ${newId}, 'private-token-issued',
              $2::jsonb || jsonb_build_object('client_id', 'grown-client-' || (g % 50),
                                              'jti', gen_random_uuid()::text),
              $3::jsonb
       FROM generate_series(1, $4::int) g`,
      [offset, JSON.stringify(template.data), JSON.stringify(template.metadata), size],
    );
  /** Appends `count` events in transactions of `group`, four at a time. */
  async function grow(count: number, group: number): Promise<void> {
    let next = 0;
    const writer = async () => {
      while (next < count) {
        const size = Math.min(group, count - next);
        const offset = next;
        next += size;
        await insertGrown(writers, offset, size);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
  }
  /** The median of five requests' latency, in ms, and the lines of the last answer. */
  async function latency(url: string): Promise<{ ms: number; lines: number }> {
    // A proof waits for the next signed tree head to cover the event.
    for (let i = 0; i < 120; i += 1) {
      if ((await fetch(url, { headers: auditHeaders })).status !== 404) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const times: number[] = [];
    let lines = 0;
    for (let i = 0; i < 5; i += 1) {
      const started = process.hrtime.bigint();
      const answer = await fetch(url, { headers: auditHeaders });
      const body = await answer.text();
      if (!answer.ok) throw new Error(`${url} answered ${answer.status}: ${body}`);
      times.push(secondsSince(started) * 1000);
      lines = body.split('\n').length - 1;
    }
    return { ms: times.sort((a, b) => a - b)[2]!, lines };
  }

  interface Row {
    readonly size: string;
    readonly grown: number;
    readonly growSeconds: number;
    readonly catchUp: { projector: number; sealer: number };
    readonly ours: Measured;
    readonly peer: Measured;
    readonly proofMs: number;
    readonly exported: { ms: number; lines: number };
    readonly bytesPerToken: number;
  }
  /** Issuance, ours and the peer's, on the log as it is now. */
  async function issuance(): Promise<{ ours: Measured; peer: Measured }> {
    // Grown in one go, the log leaves autovacuum a table's work to do during the measurement.
    await pool.query('VACUUM (ANALYZE) events');
    // Alternated, and summed: one run of each drifts with the machine more than with the log.
    const runs: { peer: Measured[]; ours: Measured[] } = { peer: [], ours: [] };
    for (let i = 0; i < Number(values.repeat); i += 1) {
      runs.peer.push(await load('peer', plan, peerRequest));
      runs.ours.push(await load('ours', plan, privateRequest));
    }
    return { peer: combinedRuns(runs.peer), ours: combinedRuns(runs.ours) };
  }
  const rows: Row[] = [];
  let inLog = 0;
  for (const size of sizes) {
    const grown = Math.max(0, size - inLog);
    log(`growing the log by ${grown.toLocaleString('en')} events to ${size.toLocaleString('en')}`);
    const growStarted = process.hrtime.bigint();
    await grow(grown, GROUP);
    const growSeconds = secondsSince(growStarted);
    inLog += grown;
    const catchUp = await caughtUp(pool);
    log(
      `caught up: projector ${catchUp.projector.toFixed(1)} s, sealer ${catchUp.sealer.toFixed(1)} s`,
    );
    const { peer, ours } = await issuance();
    await caughtUp(pool);
    const proofMs = (await latency(`${api}/v1/audit/proof/inclusion?tree=space&jti=${jti}`)).ms;
    const exported = await latency(
      `${api}/v1/audit/export?from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    const storage = await bytesPerToken(pool);
    rows.push({
      size: size.toLocaleString('en'),
      grown,
      growSeconds,
      catchUp,
      ours,
      peer,
      proofMs,
      exported,
      bytesPerToken: Math.round(storage.bytes / Math.max(storage.tokens, 1)),
    });
    log(`${size}: ours ${ours.rps.toFixed(0)}/s, peer ${peer.rps.toFixed(0)}/s`);
  }

  const baseline = rows[0]!;
  const ratio = (row: Pick<Row, 'ours' | 'peer'>) => row.ours.rps / row.peer.rps;
  const bulk = Number(values.bulk);
  const bulkLines: string[] = [];
  if (bulk > 0) {
    log(`one bulk transaction of ${bulk.toLocaleString('en')} events`);
    const maxSeconds = Number(values['max-catch-up']);
    const insert = (client: pg.PoolClient) => insertGrown(client, 0, bulk).then(() => undefined);
    const caught = await bulkCatchUp(writers, bulk, insert, { windowSeconds: 10, maxSeconds });
    bulkLines.push(
      `After one transaction of ${bulk.toLocaleString('en')} events (written in ${caught.insertSeconds.toFixed(0)} s; catch-up bound ${maxSeconds} s):`,
      ...(['projector', 'sealer'] as const).map(
        (name) => `- ${describeCatchUp(`the ${name}`, bulk, caught[name])}`,
      ),
    );
    if (caught.projector.seconds !== undefined && caught.sealer.seconds !== undefined) {
      const after = await issuance();
      bulkLines.push(
        `- issuance after it: ours ${after.ours.rps.toFixed(0)}/s, peer ${after.peer.rps.toFixed(0)}/s, ` +
          `ours ÷ peer ${ratio(after).toFixed(2)}, ${(ratio(after) / ratio(baseline)).toFixed(2)} of the first row's`,
      );
    }
  }

  const lines = [
    '| log size | grown (events/s) | projector caught up | sealer caught up | private tokens/s | peer/s | ours ÷ peer | vs first row | p99 ms | inclusion proof ms | export of the space: ms (lines) | bytes/token |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.size} | ${row.grown === 0 ? '–' : Math.round(row.grown / row.growSeconds).toLocaleString('en')} | ${row.catchUp.projector.toFixed(1)} s | ${row.catchUp.sealer.toFixed(1)} s | ${row.ours.rps.toFixed(0)} | ${row.peer.rps.toFixed(0)} | ${ratio(row).toFixed(2)} | ${(ratio(row) / ratio(baseline)).toFixed(2)} | ${row.ours.p99} | ${row.proofMs.toFixed(1)} | ${row.exported.ms.toFixed(0)} (${row.exported.lines.toLocaleString('en')}) | ${row.bytesPerToken} |`,
    ),
    '',
    ...bulkLines,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  stopAll();
  await writers.end();
  await database.stop();
}
