import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  drillCredential,
  fleetIn,
  issuedFound,
  sleep,
  steadyLoad,
  type Fleet,
} from './support/drill.js';

/**
 * The harder failover: the synchronous standby stalls (its WAL receiver stops, its connection
 * stays up) while tokens are issued, and the leader dies before it catches up. A commit waiting
 * for the standby that a statement timeout cancels is committed locally — Postgres only warns — so
 * a service that answered it 200 would lose that token at failover. Ours answers 503.
 */
const fleet = fleetIn('token-authority-stall');
let started: Fleet;
let credential: { client_id: string; client_secret: string };

beforeAll(async () => {
  // FLEET_DRILL_ASYNCHRONOUS=1: the same drill on asynchronous replication (docs/fleet.md).
  const mode = process.env.FLEET_DRILL_ASYNCHRONOUS === '1' ? ['--asynchronous'] : [];
  started = fleet.up('--api-replicas=2', '--pg-nodes=2', ...mode);
  credential = await drillCredential(started, fleet.dir, 'stall-space');
}, 300_000);
afterAll(() => fleet.down(), 120_000);

/** The WAL receiver of the standby whose postmaster is `postmasterPid`. */
function walReceiver(postmasterPid: number): number {
  const ps = spawnSync('ps', ['--ppid', String(postmasterPid), '-o', 'pid=,args='], {
    encoding: 'utf8',
  });
  const line = ps.stdout.split('\n').find((row) => row.includes('walreceiver'));
  if (!line) throw new Error(`no walreceiver under ${postmasterPid}:\n${ps.stdout}`);
  return Number(line.trim().split(/\s+/)[0]);
}

describe('a stalled synchronous standby, then the leader dies', () => {
  it('no token answered 200 is missing on the new leader', async () => {
    const load = steadyLoad(started.lb_url, credential, 4);
    await sleep(2000);
    const before = await fleet.statusNow();
    const leader = before.pg.find((node) => node.role === 'leader')!;
    const standby = before.pg.find((node) => node.role !== 'leader')!;
    const receiver = walReceiver(standby.pid!);
    const stalledAt = Date.now();
    process.kill(receiver, 'SIGSTOP');
    // Longer than the statement timeout (2 s): commits waiting for the standby are cancelled.
    await sleep(4000);
    process.kill(leader.patroni_pid!, 'SIGKILL');
    process.kill(leader.pid!, 'SIGKILL');
    process.kill(receiver, 'SIGCONT');
    const until = Date.now() + 40_000;
    while (Date.now() < until) {
      await sleep(500);
      if (
        load.outcomes.filter((o) => o.status === 200 && o.startedAt > stalledAt + 5000).length > 20
      )
        break;
    }
    await load.stop();
    const after = fleet.status();
    expect(after.pg.find((node) => node.role === 'leader')?.name).toBe(standby.name);
    const served = load.outcomes.filter((o) => o.status === 200).map((o) => o.jti!);
    const found = await issuedFound(after.owner_url, served);
    const duringStall = load.outcomes.filter(
      (o) => o.startedAt >= stalledAt && o.startedAt < stalledAt + 4000,
    );
    console.log(
      JSON.stringify({
        drill: 'stalled standby, then leader killed',
        answered_200: served.length,
        found_on_new_leader: found,
        during_stall: {
          answered_200: duringStall.filter((o) => o.status === 200).length,
          answered_503: duringStall.filter((o) => o.status === 503).length,
        },
      }),
    );
    expect(found).toBe(served.length);
    expect(
      load.outcomes.filter((o) => (o.status !== 200 && o.status !== 503) || !o.fromService),
    ).toEqual([]);
  }, 120_000);
});
