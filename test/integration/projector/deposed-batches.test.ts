import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectOptions } from '../../../src/cli/runtime.js';
import { loadConfig } from '../../../src/config/config.js';
import { connect } from '../../../src/db/database.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { PROJECTOR_BATCHES_NAME } from '../../../src/projections/deposed-batches.js';
import { startProjector, type RunningProjector } from '../../../src/projections/projector.js';
import { ratesProjection } from '../../../src/projections/rates.js';
import { withDatabase } from '../../support/database-url.js';
import { adminDatabaseUrl, createTestDatabase } from '../../support/test-database.js';
import { insertIssuances } from '../../support/bulk-issuances.js';
import { waitUntil } from '../../support/wait.js';

/**
 * A deposed leader frozen mid-statement keeps its locks past every timeout (a cancel cannot reach
 * a backend blocked on its client). Given a session that holds the projections' checkpoints and
 * runs a statement without end, when the leader's pass gives up on the lock, then it ends that
 * session if it is another projector's batches, and never a rebuild's or another role's. The
 * projectors and the deposed batch log in as the projector's role, as deployments run them.
 */
const database = await createTestDatabase(2);
await insertIssuances(database.db, { count: 10, spaces: 1, clients: 1 });
const logins: string[] = [];
/** A login of its own in `role`, and its URL to this test's database. */
async function loginIn(role: string): Promise<string> {
  const login = `deposed_${randomBytes(4).toString('hex')}`;
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
    applicationName: PROJECTOR_BATCHES_NAME,
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

/**
 * A session named `name` (as `url`'s login) in a statement that never ends, holding the rates
 * checkpoint unless `holds` is false.
 */
async function holder(name: string, url = projectorUrl, holds = true) {
  const client = new pg.Client({ connectionString: url, application_name: name });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  if (holds) {
    await client.query('SELECT 1 FROM projection_checkpoints WHERE projection = $1 FOR UPDATE', [
      ratesProjection.name,
    ]);
  }
  const statement = client.query('SELECT pg_sleep(600)').then(
    () => 'finished',
    (error: { code?: string }) => error.code,
  );
  return { client, statement };
}

/** Ends the sessions named `name` as their operator would (a client's end() waits for the sleep). */
const endSessions = (name: string) =>
  database.pool.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
    [name],
  );

const ratesBehind = async () => {
  const { rows } = await database.pool.query<{ behind: boolean }>(
    `SELECT (SELECT max(global_position) FROM events) >
            (SELECT global_position FROM projection_checkpoints WHERE projection = $1) AS behind`,
    [ratesProjection.name],
  );
  return rows[0]!.behind;
};

describe('a deposed projector batch holding the checkpoints', () => {
  it('is ended by the leader once its pass gives up on the lock, and the views go on', async () => {
    const ended = count('ended a deposed');
    // Another role's session calling itself a batch (a compromised API): never ended, and no
    // obstacle to ending the real one.
    const impostor = await holder('token-authority-projector-batches-impostor', apiUrl, false);
    const { statement } = await holder('token-authority-projector-batches-0123456789ab');
    await insertIssuances(database.db, { count: 5, spaces: 1, clients: 1 });
    // Ended by the leader: 57P01, "terminating connection due to administrator command".
    const still = new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000));
    expect(await Promise.race([statement, still])).toBe('57P01');
    // Logged, once the ending query has answered.
    await waitUntil(() => count('ended a deposed') === ended + 1);
    expect(await Promise.race([impostor.statement, 'running'])).toBe('running');
    await endSessions('token-authority-projector-batches-impostor');
    await impostor.statement;
    await waitUntil(async () => !(await ratesBehind()));
  });

  it("is not a rebuild: a rebuild's session is never ended, and the leader waits it out", async () => {
    const { statement } = await holder('token-authority-projector-rebuild');
    await insertIssuances(database.db, { count: 5, spaces: 1, clients: 1 });
    // Three of the leader's passes give up on the lock (300 ms each), and it is still there.
    const [failed, ended] = [count('projector pass failed'), count('ended a deposed')];
    await waitUntil(() => count('projector pass failed') >= failed + 3, Boolean, {
      timeoutMs: 20_000,
    });
    expect(await Promise.race([statement, 'running'])).toBe('running');
    expect(count('ended a deposed')).toBe(ended);
    expect(await ratesBehind()).toBe(true);
    // Its operator ends it; the leader goes on.
    await endSessions('token-authority-projector-rebuild');
    await statement;
    await waitUntil(async () => !(await ratesBehind()));
  });
});
