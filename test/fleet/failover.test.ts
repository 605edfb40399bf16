import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEADLINE_MS,
  drillCredential,
  fleetIn,
  issuedFound,
  query,
  sleep,
  steadyLoad,
  type Fleet,
} from './support/drill.js';
import { API_NODE_FLAGS } from '../../src/config/node-flags.js';
import {
  HAPROXY_CHECK_SECONDS,
  PATRONI_LOOP_WAIT_SECONDS,
  PATRONI_TTL_SECONDS,
} from '../../tools/fleet/configs.js';

/**
 * The failover drill, against the reference fleet (`npm run fleet`): Patroni with synchronous
 * replication, HAProxy, two API replicas, two projectors. Needs the apt packages patroni,
 * etcd-server, haproxy and postgresql-15 (`.ci/run` installs them). `npm run test:fleet`.
 */
const fleet = fleetIn('token-authority-drill');
let started: Fleet;
let credential: { client_id: string; client_secret: string };
const SPACE = 'drill-space';

beforeAll(() => {
  // FLEET_DRILL_ASYNCHRONOUS=1 runs the same drill on asynchronous replication, to show what the
  // synchronous standby buys (docs/fleet.md); CI runs it synchronous.
  const mode = process.env.FLEET_DRILL_ASYNCHRONOUS === '1' ? ['--asynchronous'] : [];
  started = fleet.up('--api-replicas=2', '--pg-nodes=2', ...mode);
}, 300_000);
afterAll(() => fleet.down(), 120_000);

const status = () => fleet.status();

/** Kills, under load, what `victims` names; returns the load's outcomes and the kill time. */
async function drill(victims: (leader: Fleet['pg'][number]) => number[]) {
  const load = steadyLoad(started.lb_url, credential, 8);
  await sleep(3000);
  const leader = (await fleet.statusNow()).pg.find((node) => node.role === 'leader')!;
  const killedAt = Date.now();
  for (const pid of victims(leader)) process.kill(pid, 'SIGKILL');
  // Served again, then a while more.
  const deadline = killedAt + 40_000;
  while (Date.now() < deadline) {
    await sleep(500);
    const servedAfter = load.outcomes.filter(
      (outcome) => outcome.status === 200 && outcome.startedAt > killedAt,
    );
    if (servedAfter.length > 50) break;
  }
  await load.stop();
  const firstServed = Math.min(
    ...load.outcomes
      .filter((outcome) => outcome.status === 200 && outcome.startedAt > killedAt)
      .map((outcome) => outcome.endedAt),
  );
  return {
    outcomes: load.outcomes,
    stalls: load.stalls,
    killedAt,
    recoveredAfterMs: firstServed - killedAt,
    leader,
  };
}

describe('the API replicas', () => {
  it('run with the Node flags of every API process (src/config/node-flags.ts)', () => {
    expect(started.api_pids).toHaveLength(2);
    for (const pid of started.api_pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      for (const flag of API_NODE_FLAGS) expect(argv).toContain(flag);
    }
  });
});

describe('failover under load', () => {
  beforeAll(async () => {
    credential = await drillCredential(started, fleet.dir, SPACE);
  });

  it('the leader host dies (Patroni and postmaster, kill -9): a standby leads, writes are served within the TTL, two Patroni loops, the HAProxy check and 3 s, only 503s with Retry-After meanwhile, and every token answered 200 is on the new leader', async () => {
    const { outcomes, stalls, recoveredAfterMs, leader } = await drill((node) => [
      node.patroni_pid!,
      node.pid!,
    ]);
    const after = status();
    const newLeader = after.pg.find((node) => node.role === 'leader');
    expect(newLeader?.name).toBeDefined();
    expect(newLeader!.name).not.toBe(leader.name);
    // The dead leader's key lives out its TTL; then a loop or two of Patroni's, HAProxy's check
    // and the promotion (3 s). TTL + 5 s alone was missed once by 1 s (26.0 s; 19.7 s the next run).
    const bound = PATRONI_TTL_SECONDS + 2 * PATRONI_LOOP_WAIT_SECONDS + HAPROXY_CHECK_SECONDS + 3;
    expect(recoveredAfterMs).toBeLessThanOrEqual(bound * 1000);

    const statuses = new Set(outcomes.map((outcome) => outcome.status));
    expect([...statuses].filter((code) => code !== 200 && code !== 503)).toEqual([]);
    for (const outcome of outcomes.filter((o) => o.status === 503)) {
      expect(outcome.retryAfter).not.toBeNull();
    }
    // The API answered every one: both replicas stay up, so a balancer's own 503 is a failure.
    expect(outcomes.filter((o) => !o.fromService)).toEqual([]);
    const longest = Math.max(...outcomes.map((outcome) => outcome.endedAt - outcome.startedAt));
    expect(longest).toBeLessThan(DEADLINE_MS + 1000);

    const served = outcomes.filter((outcome) => outcome.status === 200).map((o) => o.jti!);
    expect(new Set(served).size).toBe(served.length);
    const found = await issuedFound(after.owner_url, served);
    expect(found).toBe(served.length);
    console.log(
      JSON.stringify({
        drill: 'leader host killed',
        recovered_after_ms: recoveredAfterMs,
        answered_200: served.length,
        found_on_new_leader: found,
        answered_503: outcomes.filter((o) => o.status === 503).length,
        longest_wait_ms: longest,
        driver_stalled_ms: stalls.reduce((sum, stall) => sum + stall.to - stall.from, 0),
      }),
    );
  }, 120_000);

  it('the projector resumes on the new leader, and the log tree checks end to end', async () => {
    const caughtUp = async () => {
      const [row] = await query<{ behind: number }>(
        status().owner_url,
        `SELECT (SELECT count(*) FROM events) - (SELECT COALESCE(sum(event_count), 0) FROM log_seals) AS behind`,
      );
      return Number(row!.behind) === 0;
    };
    const until = Date.now() + 30_000;
    while (!(await caughtUp()) && Date.now() < until) {
      await sleep(500);
    }
    expect(await caughtUp()).toBe(true);
    expect(status().projectors.filter((projector) => projector.leader)).toHaveLength(1);
    const verify = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/verify-chain.ts'], {
      encoding: 'utf8',
      // The fleet's DATA_DIR holds the audit key the heads are signed with, and their files.
      env: {
        ...process.env,
        DATABASE_URL: status().owner_url,
        DATA_DIR: path.join(fleet.dir, 'data'),
        LOG_LEVEL: 'warn',
      },
    });
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: true });
  }, 60_000);

  it('a postmaster killed alone is restarted in place by Patroni: writes are served within 15 s', async () => {
    const { outcomes, recoveredAfterMs } = await drill((node) => [node.pid!]);
    expect(recoveredAfterMs).toBeLessThanOrEqual(15_000);
    expect(
      outcomes.filter((o) => (o.status !== 200 && o.status !== 503) || !o.fromService),
    ).toEqual([]);
    console.log(
      JSON.stringify({ drill: 'postmaster killed', recovered_after_ms: recoveredAfterMs }),
    );
  }, 120_000);
});
