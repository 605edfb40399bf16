import { chownSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/net/free-port.js';
import { etcdArgs, patroniConfig, type EtcdPeer, type PgPasswords } from './configs.js';
import type { FleetState, PgNode } from './layout.js';
import { addHost, createBridge, hostOf, inNetns, SUBNET } from './netns.js';
import { startDetached, waitFor, type RunAs } from './processes.js';

/** What starting the etcd members and the Postgres nodes needs. */
export interface NodeOptions {
  readonly dir: string;
  readonly pgNodes: number;
  /** Each node and etcd member in a network namespace of its own (the partition drill). */
  readonly netns: boolean;
  readonly passwords: PgPasswords;
  readonly synchronous?: boolean;
  readonly strict?: boolean;
  readonly runAs?: RunAs;
  readonly log: (message: string) => void;
  readonly save: () => Promise<void>;
}

/** In namespaces: three etcd members (a majority survives a split), each its own address. */
const ETCD_MEMBERS_IN_NETNS = 3;
const etcdOctet = (i: number) => 20 + i;
const pgOctet = (i: number) => 10 + i;

const httpOk = (url: string) => async () =>
  (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;

/**
 * Starts etcd: one member on loopback, or (netns) the bridge and three members, each in its own
 * namespace. Fills `state.etcd` and `state.etcdMembers`.
 */
export async function startEtcd(state: FleetState, options: NodeOptions): Promise<void> {
  if (options.netns) createBridge();
  const count = options.netns ? ETCD_MEMBERS_IN_NETNS : 1;
  const peers: (EtcdPeer & { netns?: string })[] = [];
  for (let i = 0; i < count; i += 1) {
    if (options.netns) {
      const host = hostOf(`etcd${i}`, etcdOctet(i));
      addHost(host);
      peers.push({
        name: `etcd${i}`,
        host: host.address,
        clientPort: 2379,
        peerPort: 2380,
        netns: host.netns,
      });
    } else {
      const [clientPort, peerPort] = [await freePort(), await freePort()];
      peers.push({ name: 'fleet', host: '127.0.0.1', clientPort, peerPort });
    }
  }
  for (const [i, peer] of peers.entries()) {
    const dataDir = path.join(options.dir, i === 0 && !options.netns ? 'etcd' : `etcd${i}`);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const args = etcdArgs({ dataDir, self: peer, cluster: peers });
    const [command, argv] = peer.netns ? inNetns(peer.netns, 'etcd', args) : ['etcd', args];
    const pid = startDetached(command, argv, {
      logFile: path.join(options.dir, peers.length > 1 ? `${peer.name}.log` : 'etcd.log'),
    });
    state.etcdMembers.push({
      name: peer.name,
      pid,
      host: peer.host,
      clientPort: peer.clientPort,
      netns: peer.netns,
    });
    if (i === 0) state.etcd = { pid, clientPort: peer.clientPort };
    await options.save();
  }
  for (const peer of peers) {
    await waitFor(`etcd ${peer.name}`, httpOk(`http://${peer.host}:${peer.clientPort}/health`));
  }
  options.log(`etcd up: ${peers.map((peer) => `${peer.host}:${peer.clientPort}`).join(', ')}`);
}

/**
 * Starts `pgNodes` Postgres nodes under Patroni (as `runAs`; in netns, each in its own namespace
 * at SUBNET.10+i); the first bootstraps and leads, each next one clones it. Waits for a
 * synchronous standby.
 */
export async function startPgNodes(state: FleetState, options: NodeOptions): Promise<void> {
  const { dir, runAs } = options;
  for (let i = 0; i < options.pgNodes; i += 1) {
    const nodeDir = path.join(dir, `pg${i}`);
    await mkdir(nodeDir, { recursive: true, mode: 0o700 });
    if (runAs) chownSync(nodeDir, runAs.uid, runAs.gid);
    const host = options.netns ? hostOf(`pg${i}`, pgOctet(i)) : undefined;
    if (host) addHost(host);
    const node: PgNode = {
      name: `pg${i}`,
      port: host ? 5432 : await freePort(),
      restPort: host ? 8008 : await freePort(),
      dataDir: path.join(nodeDir, 'data'),
      patroniPid: 0,
      host: host?.address ?? '127.0.0.1',
      netns: host?.netns,
    };
    const configFile = path.join(nodeDir, 'patroni.yml');
    await writeFile(
      configFile,
      patroniConfig({
        scope: 'token-authority',
        node,
        etcdHosts: state.etcdMembers.map((member) => `${member.host}:${member.clientPort}`),
        clients: host ? `${SUBNET}.0/24` : '127.0.0.1/32',
        passwords: options.passwords,
        synchronous: options.synchronous,
        strict: options.strict,
      }),
      { mode: 0o600 },
    );
    if (runAs) chownSync(configFile, runAs.uid, runAs.gid);
    const logFile = path.join(dir, `${node.name}.log`);
    const env = { ...process.env, HOME: nodeDir };
    // In a namespace: `ip netns exec` needs root, so the switch to the postgres user is setpriv's.
    const pid = host
      ? startDetached(
          ...inNetns(host.netns, 'setpriv', [
            ...(runAs ? [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups'] : []),
            'patroni',
            configFile,
          ]),
          { logFile, env, cwd: nodeDir },
        )
      : startDetached('patroni', [configFile], { logFile, env, cwd: nodeDir, runAs });
    state.pg.push({ ...node, patroniPid: pid });
    await options.save();
    const role = i === 0 ? 'primary' : 'replica';
    await waitFor(
      `${node.name} as ${role}`,
      httpOk(`http://${node.host}:${node.restPort}/${role}`),
      120_000,
    );
    options.log(`${node.name} up as ${role} on ${node.host}:${node.port}`);
  }
  if (options.pgNodes > 1 && options.synchronous !== false) {
    const first = state.pg[0]!;
    await waitFor(
      'a synchronous standby',
      async () => {
        const response = await fetch(`http://${first.host}:${first.restPort}/cluster`);
        const body = (await response.json()) as { members: { role: string }[] };
        return body.members.some((member) => member.role === 'sync_standby');
      },
      60_000,
    );
  }
}
