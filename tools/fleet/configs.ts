import path from 'node:path';
import type { PgNode } from './layout.js';

/** Debian's PostgreSQL 15 server binaries, which Patroni runs. */
export const PG_BIN_DIR = '/usr/lib/postgresql/15/bin';

/**
 * Patroni's TTL of the leader key, in seconds: how long a dead leader keeps it. 20 is the least
 * Patroni 3.2 and later accept (patroni/patroni#2869: they raise a lower one to it, with a
 * warning); 3.0.2, which took 10, overwrites the leader key without a compare (patroniRefusal).
 */
export const PATRONI_TTL_SECONDS = 20;

/** How often, in seconds, each Patroni node runs its loop (a standby notices a free key in one). */
export const PATRONI_LOOP_WAIT_SECONDS = 2;

/** How often, in seconds, HAProxy checks each backend (a promoted standby is routed within one). */
export const HAPROXY_CHECK_SECONDS = 1;

/** The passwords Patroni gives the roles it creates. */
export interface PgPasswords {
  readonly superuser: string;
  readonly replication: string;
  readonly rewind: string;
}

/**
 * One Patroni node: synchronous replication (a commit is acknowledged once the synchronous standby
 * has it, so a failover loses no acknowledged token), a TTL of {@link PATRONI_TTL_SECONDS} s and
 * loop_wait {@link PATRONI_LOOP_WAIT_SECONDS} s (a dead leader is replaced in about the TTL),
 * retry_timeout 5 s (a leader that cannot renew its key demotes well before the TTL lets a standby
 * take it), pg_rewind so a former leader can rejoin.
 */
export function patroniConfig(options: {
  readonly scope: string;
  readonly node: PgNode;
  /** The etcd members, `host:port` each. */
  readonly etcdHosts: readonly string[];
  /** Who may connect (the fleet's hosts): 127.0.0.1/32, or the drill's bridge subnet. */
  readonly clients: string;
  readonly passwords: PgPasswords;
  /** False only to show what asynchronous replication loses (`fleet up --asynchronous`). */
  readonly synchronous?: boolean;
  /** No commit without a synchronous standby, even when none is left (see docs/fleet.md). */
  readonly strict?: boolean;
}): string {
  const { node, passwords } = options;
  const synchronous = options.synchronous ?? true;
  return `scope: ${options.scope}
name: ${node.name}
restapi:
  listen: ${node.host}:${node.restPort}
  connect_address: ${node.host}:${node.restPort}
etcd3:
  hosts: ${options.etcdHosts.join(',')}
bootstrap:
  dcs:
    ttl: ${PATRONI_TTL_SECONDS}
    loop_wait: ${PATRONI_LOOP_WAIT_SECONDS}
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: ${synchronous}
    synchronous_mode_strict: ${synchronous && (options.strict ?? false)}
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        wal_log_hints: 'on'
        synchronous_commit: 'on'
        # A standby cut off is dropped after 10 s (the default, 60 s, outlasts a partition): only
        # then does Patroni give the synchronous role to a standby still streaming.
        wal_sender_timeout: 10s
        # Each commit's time, so the partition checker places every acknowledged write on a
        # timeline (before or after the switch that ended it).
        track_commit_timestamp: 'on'
  initdb:
  - encoding: UTF8
  - data-checksums
  pg_hba:
  - host replication replicator ${options.clients} scram-sha-256
  - host all all ${options.clients} scram-sha-256
postgresql:
  listen: ${node.host}:${node.port}
  connect_address: ${node.host}:${node.port}
  data_dir: ${node.dataDir}
  bin_dir: ${PG_BIN_DIR}
  pgpass: ${path.dirname(node.dataDir)}/pgpass
  authentication:
    replication: {username: replicator, password: '${passwords.replication}'}
    superuser: {username: postgres, password: '${passwords.superuser}'}
    rewind: {username: rewinder, password: '${passwords.rewind}'}
  parameters:
    unix_socket_directories: '${path.dirname(node.dataDir)}'
`;
}

/** One etcd member: its name, address and ports. */
export interface EtcdPeer {
  readonly name: string;
  readonly host: string;
  readonly clientPort: number;
  readonly peerPort: number;
}

/**
 * etcd's command line for `self`, one member of `cluster` (one on loopback; three, each in its own
 * namespace, in the partition drill): the store Patroni elects its leader in.
 */
export function etcdArgs(options: {
  readonly dataDir: string;
  readonly self: EtcdPeer;
  readonly cluster: readonly EtcdPeer[];
}): string[] {
  const { self } = options;
  const client = `http://${self.host}:${self.clientPort}`;
  const peer = (member: EtcdPeer) => `http://${member.host}:${member.peerPort}`;
  return [
    `--name=${self.name}`,
    `--data-dir=${options.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer(self)}`,
    `--initial-advertise-peer-urls=${peer(self)}`,
    `--initial-cluster=${options.cluster.map((member) => `${member.name}=${peer(member)}`).join(',')}`,
    '--initial-cluster-state=new',
    '--initial-cluster-token=token-authority-fleet',
  ];
}

/**
 * HAProxy: writes to whichever node Patroni's REST API says is the primary (checked every
 * second; sessions to a node marked down are cut, so nothing keeps writing to a former leader),
 * reads to the replicas, and the API replicas round-robin behind one port.
 */
export function haproxyConfig(options: {
  readonly writePort: number;
  readonly readPort: number;
  readonly apiPort: number;
  readonly pg: readonly PgNode[];
  readonly apiPorts: readonly number[];
}): string {
  const pgServers = options.pg
    .map((node) => `  server ${node.name} ${node.host}:${node.port} check port ${node.restPort}`)
    .join('\n');
  const apiServers = options.apiPorts
    .map((port, i) => `  server api${i} 127.0.0.1:${port} check`)
    .join('\n');
  return `global
  maxconn 4000

defaults
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s

listen postgres-primary
  mode tcp
  bind 127.0.0.1:${options.writePort}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter ${HAPROXY_CHECK_SECONDS}s fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}

listen postgres-replicas
  mode tcp
  bind 127.0.0.1:${options.readPort}
  balance roundrobin
  option httpchk GET /replica
  http-check expect status 200
  default-server inter ${HAPROXY_CHECK_SECONDS}s fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}

listen api
  mode http
  bind 127.0.0.1:${options.apiPort}
  balance roundrobin
  option httpchk GET /livez
  timeout client 60s
  timeout server 60s
  # A replica that dies between checks: the request goes to another (a token request that never
  # reached a process changed nothing), and the balancer's own 503 says when to come back.
  retries 2
  option redispatch 1
  retry-on conn-failure
  http-after-response set-header Retry-After 1 if { status 503 } !{ res.hdr(Retry-After) -m found }
  default-server inter ${HAPROXY_CHECK_SECONDS}s fall 2 rise 1
${apiServers}
`;
}
