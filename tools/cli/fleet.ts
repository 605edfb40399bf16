/**
 * `npm run fleet -- up|status|down`: a reference deployment on this machine, from Debian and npm
 * packages only — etcd, Postgres nodes under Patroni (synchronous replication), HAProxy, API
 * replicas and two projectors (docs/fleet.md).
 */
import { rm } from 'node:fs/promises';
import { ensurePostgresUser } from '#embedded-postgres/os-user.js';
import { DEFAULT_FLEET_DIR, readFleetState } from '../fleet/layout.js';
import { isAlive, stopAll } from '../fleet/processes.js';
import { BRIDGE, removeNetwork, SUBNET } from '../fleet/netns.js';
import { fleetStatus } from '../fleet/status.js';
import { fleetUp, missingPrograms, patroniRefusal } from '../fleet/up.js';
import { parseCommandLine } from '#settings/command-line.js';

const USAGE = `Usage: npm run fleet -- up [--api-replicas=N] [--pg-nodes=M] [--dir=DIR]
       npm run fleet -- status [--dir=DIR]
       npm run fleet -- down [--dir=DIR] [--keep]
up      starts etcd, M Postgres nodes under Patroni (synchronous replication; default 2), HAProxy
        (writes to the leader, reads to replicas, the API behind one port), N API replicas
        (default 3) and two projectors; prints the fleet as JSON on its last line.
status  prints the same JSON as it is now.
        --asynchronous: asynchronous replication, only to show what a failover then loses.
        --netns: each Postgres node and three etcd members in network namespaces of their own
        on a test bridge (${BRIDGE}, ${SUBNET}.0/24; the partition drill's form; needs root).
        --strict: synchronous_mode_strict (no commit without a synchronous standby).
        --issuer=URL: TOKEN_ISSUER (default: the balancer's URL).
down    stops everything the fleet started and removes DIR (--keep leaves it).
DIR defaults to ${DEFAULT_FLEET_DIR} (outside the clone: the postgres user must reach it).
Needs the apt packages patroni, etcd-server, haproxy and postgresql-15.`;

const { values, positionals } = parseCommandLine(USAGE, {
  'api-replicas': { type: 'string', default: '3' },
  'pg-nodes': { type: 'string', default: '2' },
  dir: { type: 'string', default: process.env.FLEET_DIR ?? DEFAULT_FLEET_DIR },
  keep: { type: 'boolean', default: false },
  asynchronous: { type: 'boolean', default: false },
  netns: { type: 'boolean', default: false },
  strict: { type: 'boolean', default: false },
  issuer: { type: 'string' },
});
const usageError = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};
const count = (name: 'api-replicas' | 'pg-nodes', min: number, max: number) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < min || value > max) {
    usageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
};
const dir = values.dir;
const command = positionals[0] ?? usageError('say up, status or down');

const everyPid = (state: NonNullable<Awaited<ReturnType<typeof readFleetState>>>) => [
  ...state.apis.map((api) => api.pid),
  ...state.projectors.map((projector) => projector.pid),
  state.haproxy.pid,
  ...state.pg.map((node) => node.patroniPid),
  state.etcd.pid,
  ...state.etcdMembers.map((member) => member.pid),
];

/** Stops what `state` started, then removes the namespaces and links of the netns form. */
async function stopFleet(state: NonNullable<Awaited<ReturnType<typeof readFleetState>>>) {
  await stopAll([...new Set(everyPid(state).filter((pid) => pid > 0))]);
  if (state.netns) removeNetwork();
}

if (command === 'up') {
  const apiReplicas = count('api-replicas', 1, 16);
  const pgNodes = count('pg-nodes', 1, 5);
  const missing = missingPrograms(values.netns);
  if (missing.length > 0) {
    console.error(
      `missing: ${missing.join(', ')}; install them with\n  apt-get install -y ${missing.join(' ')}`,
    );
    process.exit(2);
  }
  const refusal = patroniRefusal();
  if (refusal) {
    console.error(refusal);
    process.exit(2);
  }
  const existing = await readFleetState(dir);
  if (existing && everyPid(existing).some((pid) => pid > 0 && isAlive(pid))) {
    usageError(`a fleet is already running in ${dir}; run \`npm run fleet -- down\` first`);
  }
  // Postgres refuses to run as root: as root, Patroni (and so Postgres) runs as `postgres`.
  const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
  try {
    const state = await fleetUp({
      dir,
      apiReplicas,
      pgNodes,
      synchronous: !values.asynchronous,
      strict: values.strict,
      netns: values.netns,
      issuer: values.issuer,
      runAs,
      log: (message) => console.error(message),
    });
    console.log(JSON.stringify(await fleetStatus(state)));
  } catch (error) {
    console.error(
      `fleet up failed: ${(error as Error).message}; stopping what started (logs in ${dir})`,
    );
    const partial = await readFleetState(dir);
    if (partial) await stopFleet(partial);
    else if (values.netns) removeNetwork();
    process.exit(1);
  }
} else if (command === 'status') {
  const state = await readFleetState(dir);
  if (!state) usageError(`no fleet in ${dir}`);
  console.log(JSON.stringify(await fleetStatus(state!)));
} else if (command === 'down') {
  const state = await readFleetState(dir);
  if (state) await stopFleet(state);
  if (!values.keep) await rm(dir, { recursive: true, force: true });
  console.error(state ? `fleet in ${dir} stopped` : `no fleet in ${dir}`);
} else {
  usageError(`unknown command "${command}"`);
}
