import { readFileSync } from 'node:fs';
import pg from 'pg';
import { ADVISORY_LOCK } from '../../src/db/advisory-locks.js';
import { isAlive } from './processes.js';
import { ownerUrl, type FleetState } from './layout.js';

/** What `fleet up` and `fleet status` print: the fleet as it is now. */
export interface FleetStatus {
  readonly lb_url: string;
  readonly api_urls: readonly string[];
  /** The API replicas' processes, in the order of api_urls. */
  readonly api_pids: readonly number[];
  readonly owner_url: string;
  readonly pg: readonly {
    readonly name: string;
    readonly role: string;
    readonly url: string;
    /** Its address (loopback, or its own on the partition drill's bridge). */
    readonly host: string;
    /** Patroni's REST API. */
    readonly rest_url: string;
    readonly netns: string | null;
    readonly pid: number | null;
    readonly patroni_pid: number | null;
  }[];
  readonly projectors: readonly { readonly pid: number; readonly leader: boolean }[];
}

/** The postmaster's pid, from its data folder (null when it is not running). */
function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Each node's role as Patroni's cluster view says (leader, sync_standby, replica), or "down". */
async function roles(state: FleetState): Promise<Map<string, string>> {
  for (const node of state.pg) {
    try {
      const response = await fetch(`http://${node.host}:${node.restPort}/cluster`, {
        signal: AbortSignal.timeout(2000),
      });
      const body = (await response.json()) as { members: { name: string; role: string }[] };
      return new Map(body.members.map((member) => [member.name, member.role]));
    } catch {
      // that node is away; ask the next
    }
  }
  return new Map();
}

/** Which projector process holds the leader's advisory lock (its session names its pid). */
async function projectorLeader(state: FleetState): Promise<number | undefined> {
  const client = new pg.Client({
    connectionString: ownerUrl(state),
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted
          AND ((l.classid::bigint << 32) | l.objid::bigint) = $1`,
      [ADVISORY_LOCK.projectorLeader],
    );
    const match = /-(\d+)$/.exec(rows[0]?.name ?? '');
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The fleet as it is now. */
export async function fleetStatus(state: FleetState): Promise<FleetStatus> {
  const [byName, leader] = await Promise.all([roles(state), projectorLeader(state)]);
  return {
    lb_url: `http://127.0.0.1:${state.haproxy.apiPort}`,
    api_urls: state.apis.map((api) => `http://127.0.0.1:${api.port}`),
    api_pids: state.apis.map((api) => api.pid),
    owner_url: ownerUrl(state),
    pg: state.pg.map((node) => ({
      name: node.name,
      role: byName.get(node.name) ?? 'down',
      url: `postgres://postgres:${state.superuserPassword}@${node.host}:${node.port}/token_authority`,
      host: node.host,
      rest_url: `http://${node.host}:${node.restPort}`,
      netns: node.netns ?? null,
      pid: postmasterPid(node.dataDir),
      patroni_pid: isAlive(node.patroniPid) ? node.patroniPid : null,
    })),
    projectors: state.projectors.map((projector) => ({
      pid: projector.pid,
      leader: projector.pid === leader,
    })),
  };
}
