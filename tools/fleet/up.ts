import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadAuditSigningKey } from '../../src/audit-trail/audit-key.js';
import { freePort } from '../../src/net/free-port.js';
import { haproxyConfig, PG_BIN_DIR, type PgPasswords } from './configs.js';
import { writeFleetState, type FleetState } from './layout.js';
import { startEtcd, startPgNodes } from './up-nodes.js';
import { startDetached, waitFor, type RunAs } from './processes.js';
import { API_NODE_FLAGS } from '../../src/config/node-flags.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How to run one of the service's command-line entry points as a child: from its TypeScript
 * source, as the tools themselves run (they are never compiled into dist), API replicas with the
 * Node flags every API process runs with.
 */
function entry(name: string): [string, string[]] {
  const flags = name === 'api' ? API_NODE_FLAGS : [];
  return [
    process.execPath,
    [...flags, '--import', 'tsx', path.join(ROOT, 'src/cli', `${name}.ts`)],
  ];
}

const password = () => randomBytes(18).toString('base64url');

/** What `fleet up` needs from this machine; the apt packages that provide what is missing. */
export function missingPrograms(netns = false): string[] {
  const missing: string[] = [];
  const has = (program: string) => spawnSync('which', [program]).status === 0;
  if (!has('patroni')) missing.push('patroni');
  if (!has('etcd')) missing.push('etcd-server');
  if (!has('haproxy')) missing.push('haproxy');
  if (!existsSync(path.join(PG_BIN_DIR, 'postgres'))) missing.push('postgresql-15');
  if (netns && !has('ip')) missing.push('iproute2');
  if (netns && !has('iptables')) missing.push('iptables');
  return missing;
}

/** The oldest Patroni whose etcd3 leader-key update compares before it writes (patroni#2689). */
export const MINIMUM_PATRONI = '3.0.3';

/**
 * Why the `patroni` on PATH may not run a fleet, or undefined: older than {@link MINIMUM_PATRONI},
 * a node whose session expired overwrote the leader key from a stale etcd view and promoted, and
 * the partition drill lost acknowledged tokens (docs/fleet.md).
 */
export function patroniRefusal(
  answer: { readonly stdout?: string | null; readonly stderr?: string | null } = spawnSync(
    'patroni',
    ['--version'],
    { encoding: 'utf8' },
  ),
): string | undefined {
  const version = /(\d+)\.(\d+)\.(\d+)/.exec(answer.stdout ?? '');
  if (!version)
    return `\`patroni --version\` did not name a version: ${answer.stderr ?? ''}`.trim();
  // Each part below 1000 in every Patroni release: one number orders them.
  const rank = (parts: readonly string[]) =>
    parts.reduce((sum, part) => sum * 1000 + Number(part), 0);
  const newEnough = rank(version.slice(1)) >= rank(MINIMUM_PATRONI.split('.'));
  return newEnough
    ? undefined
    : `Patroni ${version[0]} can overwrite the etcd leader key without a compare (patroni/patroni#2689) and lose acknowledged writes in a partition; ${MINIMUM_PATRONI} or later is needed: scripts/fleet/patroni.sh installs Debian 13's`;
}

const httpOk = (url: string) => async () =>
  (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;

/**
 * Starts a fleet in `dir`: etcd, `pgNodes` Postgres nodes under Patroni (synchronous replication),
 * HAProxy (writes to the leader, reads to replicas, the API replicas behind one port), the
 * database migrated with a login per service, `apiReplicas` API processes and two projectors.
 * Returns what it started (also written to `<dir>/fleet.json`).
 */
export async function fleetUp(options: {
  readonly dir: string;
  readonly apiReplicas: number;
  readonly pgNodes: number;
  readonly synchronous?: boolean;
  /** `synchronous_mode_strict` (docs/fleet.md: the fault that showed it). */
  readonly strict?: boolean;
  /** Every node and etcd member in its own network namespace (the partition drill's form). */
  readonly netns?: boolean;
  /** TOKEN_ISSUER (default: the balancer's URL), so a witness can be told the origins first. */
  readonly issuer?: string;
  readonly runAs?: RunAs;
  readonly log: (message: string) => void;
}): Promise<FleetState> {
  const { dir, log } = options;
  await mkdir(dir, { recursive: true });
  // The postgres user must pass through it to its nodes' folders (each of those is its own, 700).
  await chmod(dir, 0o755);
  const passwords: PgPasswords = {
    superuser: password(),
    replication: password(),
    rewind: password(),
  };
  const state: FleetState = {
    dir,
    superuserPassword: passwords.superuser,
    etcd: { pid: 0, clientPort: 0 },
    etcdMembers: [],
    netns: options.netns ?? false,
    haproxy: { pid: 0, writePort: 0, readPort: 0, apiPort: 0 },
    pg: [],
    apis: [],
    projectors: [],
  };
  const save = () => writeFleetState(state);

  const nodes = { ...options, netns: state.netns, passwords, save };
  await startEtcd(state, nodes);
  await startPgNodes(state, nodes);

  state.haproxy.writePort = await freePort();
  state.haproxy.readPort = await freePort();
  state.haproxy.apiPort = await freePort();
  const apiPorts = await Promise.all(Array.from({ length: options.apiReplicas }, () => freePort()));
  const haproxyFile = path.join(dir, 'haproxy.cfg');
  await writeFile(haproxyFile, haproxyConfig({ ...state.haproxy, pg: state.pg, apiPorts }));
  state.haproxy.pid = startDetached('haproxy', ['-f', haproxyFile, '-db'], {
    logFile: path.join(dir, 'haproxy.log'),
  });
  await save();
  const admin = `postgres://postgres:${passwords.superuser}@127.0.0.1:${state.haproxy.writePort}`;
  await waitFor('the leader through HAProxy', async () => {
    const client = new pg.Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    const exists = await client.query(
      `SELECT 1 FROM pg_database WHERE datname = 'token_authority'`,
    );
    if (exists.rowCount === 0) await client.query('CREATE DATABASE token_authority');
    await client.end();
    return true;
  });
  log(`HAProxy up: writes ${state.haproxy.writePort}, reads ${state.haproxy.readPort}`);

  const dataDir = path.join(dir, 'data');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // As npm start's supervisor does: the audit key pair exists before the API reads its public half.
  await loadAuditSigningKey(undefined, dataDir);
  const logins = { api: password(), projector: password() };
  const common = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    TOKEN_ISSUER: options.issuer ?? `http://127.0.0.1:${state.haproxy.apiPort}`,
  };
  const [node, migrateArgs] = entry('migrate');
  const migrated = spawnSync(node, migrateArgs, {
    cwd: ROOT,
    env: {
      ...common,
      MIGRATION_DATABASE_URL: `${admin}/token_authority`,
      API_LOGIN_PASSWORD: logins.api,
      PROJECTOR_LOGIN_PASSWORD: logins.projector,
    },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migration failed: ${migrated.stderr}`);
  log('database migrated; service logins set');

  const login = (role: 'api' | 'projector', port = state.haproxy.writePort) =>
    `postgres://token_authority_${role}_login:${logins[role]}@127.0.0.1:${port}/token_authority`;
  const start = (name: 'api' | 'projector', logFile: string, env: NodeJS.ProcessEnv) => {
    const [command, args] = entry(name);
    return startDetached(command, args, { logFile, cwd: ROOT, env: { ...common, ...env } });
  };
  // The first API makes the shared keys in DATA_DIR; the others start once it is ready.
  for (const [i, port] of apiPorts.entries()) {
    const pid = start('api', path.join(dir, `api${i}.log`), {
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      DATABASE_URL: login('api'),
      // Audit and monitoring reads from the replicas, while they keep up.
      READ_DATABASE_URL: login('api', state.haproxy.readPort),
    });
    state.apis.push({ pid, port });
    await save();
    if (i === 0) await waitFor('the first API', httpOk(`http://127.0.0.1:${port}/readyz`));
  }
  for (let i = 0; i < 2; i += 1) {
    const pid = start('projector', path.join(dir, `projector${i}.log`), {
      DATABASE_URL: login('projector'),
    });
    state.projectors.push({ pid });
    await save();
  }
  for (const api of state.apis) {
    await waitFor(`API on ${api.port}`, httpOk(`http://127.0.0.1:${api.port}/readyz`));
  }
  await waitFor(
    'the API through HAProxy',
    httpOk(`http://127.0.0.1:${state.haproxy.apiPort}/readyz`),
  );
  log(`${state.apis.length} API replicas and 2 projectors up`);
  return state;
}
