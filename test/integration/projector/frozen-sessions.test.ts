import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectOptions } from '../../../src/cli/runtime.js';
import { loadConfig } from '../../../src/config/config.js';
import { connect } from '../../../src/db/database.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { PROJECTOR_POOL_NAME } from '../../../src/projections/frozen-sessions.js';
import { startProjector, type RunningProjector } from '../../../src/projections/projector.js';
import { ratesProjection } from '../../../src/projections/rates.js';
import { withDatabase } from '../../support/database-url.js';
import { adminDatabaseUrl, createTestDatabase } from '../../support/test-database.js';
import { insertIssuances } from '../../support/bulk-issuances.js';
import { waitUntil } from '../../support/wait.js';

/**
 * A projector frozen mid-read keeps its locks past every timeout (a cancel cannot reach a backend
 * blocked writing to its client). Given a session that holds the projections' checkpoints and is
 * stuck so, when the leader's pass gives up on the lock, then it ends that session if it is
 * another projector pool's, and never a rebuild's, its own process's, another role's or one a
 * cancel reaches. The projectors and the frozen one log in as the projector's role, as deployments
 * run them.
 */
const database = await createTestDatabase(2);
await insertIssuances(database.db, { count: 10, spaces: 1, clients: 1 });
const logins: string[] = [];
/** A login of its own in `role`, and its URL to this test's database. */
async function loginIn(role: string): Promise<string> {
  const login = `frozen_${randomBytes(4).toString('hex')}`;
  await database.pool.query(`CREATE ROLE ${login} LOGIN PASSWORD 'pw-${login}' IN ROLE ${role}`);
  logins.push(login);
  const url = new URL(withDatabase(adminDatabaseUrl(), database.name));
  url.username = login;
  url.password = `pw-${login}`;
  return url.toString();
}
const projectorUrl = await loginIn('token_authority_projector');
const apiUrl = await loginIn('token_authority_api');
const config = loadConfig({ BACKGROUND_LOCK_TIMEOUT_MS: '300' }, 'worker');
const batches = connect(
  connectOptions(config, pino({ level: 'silent' }), {
    url: projectorUrl,
    poolSize: 2,
    applicationName: PROJECTOR_POOL_NAME,
    timeouts: 'background',
  }),
);
let projector: RunningProjector;
/** The projector's log lines: its passes that gave up are counted from them. */
const logged: string[] = [];
const count = (message: string) => logged.filter((line) => line.includes(message)).length;

beforeAll(async () => {
  // Every checkpoint row made and current, so the holders below have rows to hold.
  for (const projection of PROJECTIONS) await catchUp(database.db, projection, 100);
  projector = startProjector({
    db: batches.db,
    url: projectorUrl,
    projections: PROJECTIONS,
    batchSize: 100,
    pollIntervalMs: 50,
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
    seal: false,
    standbyRetryMs: 100,
    lockWaitMs: 300,
  });
  await waitUntil(() => projector.isLeader());
});
afterAll(async () => {
  await projector.stop();
  await batches.close();
  await database.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ANY($1)`,
    [logins],
  );
  for (const login of logins) await database.pool.query(`DROP ROLE IF EXISTS ${login}`);
});

type Stuck = 'reading' | 'sleeping';

/**
 * A session named `name` (as `url`'s login) in a transaction that never ends: `reading`, its
 * backend blocked writing a large result to a client that stopped reading (a frozen host);
 * `sleeping`, in pg_sleep. It holds the rates checkpoint unless `holds` is false.
 */
async function holder(name: string, stuck: Stuck, url = projectorUrl, holds = true) {
  const client = new pg.Client({ connectionString: url, application_name: name });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  if (holds) {
    await client.query('SELECT 1 FROM projection_checkpoints WHERE projection = $1 FOR UPDATE', [
      ratesProjection.name,
    ]);
  }
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  if (stuck === 'reading') socket.pause();
  const statement = client
    .query(
      stuck === 'reading'
        ? "SELECT repeat('x', 100000) FROM generate_series(1, 3000)"
        : 'SELECT pg_sleep(600)',
    )
    .then(
      () => 'finished',
      (error: { code?: string }) => error.code ?? 'gone',
    );
  // Blocked for real: its backend waits on its client (or its sleep) before the test goes on.
  const pid = (client as unknown as { processID: number }).processID;
  const want = stuck === 'reading' ? 'ClientWrite' : 'PgSleep';
  await waitUntil(
    async () =>
      (
        await database.pool.query<{ wait: string | null }>(
          'SELECT wait_event AS wait FROM pg_stat_activity WHERE pid = $1',
          [pid],
        )
      ).rows[0]?.wait,
    (wait) => wait === want,
  );
  return { pid, statement, ended: () => socket.destroy() };
}

/** Ends the session `pid` as its operator would. */
const endSession = (pid: number) => database.pool.query('SELECT pg_terminate_backend($1)', [pid]);

/** Whether the session `pid` is still there. */
const present = async (pid: number) =>
  (await database.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount ===
  1;

const ratesBehind = async () => {
  const { rows } = await database.pool.query<{ behind: boolean }>(
    `SELECT (SELECT max(global_position) FROM events) >
            (SELECT global_position FROM projection_checkpoints WHERE projection = $1) AS behind`,
    [ratesProjection.name],
  );
  return rows[0]!.behind;
};

describe("another projector's session frozen holding the checkpoints", () => {
  it('is ended by the leader once its pass gives up on the lock, and the views go on', async () => {
    const ended = count('ended a frozen');
    // Another role's session named as a projector pool (a compromised API): never the leader's to end.
    const impostor = await holder(
      'token-authority-projector-pool-0000000000aa',
      'reading',
      apiUrl,
      false,
    );
    const frozen = await holder('token-authority-projector-pool-0123456789ab', 'reading');
    await insertIssuances(database.db, { count: 5, spaces: 1, clients: 1 });
    // Ended by the leader: the server no longer has it, and the views catch up.
    await waitUntil(async () => !(await present(frozen.pid)));
    await waitUntil(() => count('ended a frozen') === ended + 1);
    await waitUntil(async () => !(await ratesBehind()));
    expect(await present(impostor.pid)).toBe(true);
    await endSession(impostor.pid);
    for (const session of [impostor, frozen]) session.ended();
  });

  it("leaves a rebuild's session, its own process's and one that a cancel reaches, and waits", async () => {
    const [failed, ended] = [count('projector pass failed'), count('ended a frozen')];
    const sessions = [
      // A rebuild logs in as the owner; as the projector's login here, so only the name tells.
      ['token-authority-projector-rebuild', 'reading', true],
      [PROJECTOR_POOL_NAME, 'reading', false],
      ['token-authority-projector-pool-0123456789cd', 'sleeping', false],
    ] as const;
    const held = [];
    for (const [name, stuck, holds] of sessions) {
      held.push(await holder(name, stuck, projectorUrl, holds));
    }
    await insertIssuances(database.db, { count: 5, spaces: 1, clients: 1 });
    // Three of the leader's passes give up on the lock (300 ms each); all three are still there.
    await waitUntil(() => count('projector pass failed') >= failed + 3, Boolean, {
      timeoutMs: 20_000,
    });
    for (const session of held) expect(await present(session.pid)).toBe(true);
    expect(count('ended a frozen')).toBe(ended);
    // Looked, and found nothing to end (not a look that failed).
    expect(count('no frozen projector session holds it')).toBeGreaterThanOrEqual(3);
    expect(count('could not look')).toBe(0);
    expect(await ratesBehind()).toBe(true);
    // Their operator ends them; the leader goes on.
    for (const session of held) {
      await endSession(session.pid);
      session.ended();
    }
    await waitUntil(async () => !(await ratesBehind()));
  });
});
