import path from 'node:path';
import type { PgNode } from './layout.js';

/** Debian's PostgreSQL 15 server binaries, which Patroni runs. */
export const PG_BIN_DIR = '/usr/lib/postgresql/15/bin';

/** The passwords Patroni gives the roles it creates. */
export interface PgPasswords {
  readonly superuser: string;
  readonly replication: string;
  readonly rewind: string;
}

/**
 * One Patroni node: synchronous replication (a commit is acknowledged once the synchronous standby
 * has it, so a failover loses no acknowledged token), ttl 10 s and loop_wait 2 s (a dead leader is
 * replaced in about 10 s), pg_rewind so a former leader can rejoin.
 */
export function patroniConfig(options: {
  readonly scope: string;
  readonly node: PgNode;
  readonly etcdPort: number;
  readonly passwords: PgPasswords;
  /** False only to show what asynchronous replication loses (`fleet up --asynchronous`). */
  readonly synchronous?: boolean;
}): string {
  const { node, passwords } = options;
  return `scope: ${options.scope}
name: ${node.name}
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd3:
  hosts: 127.0.0.1:${options.etcdPort}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: ${options.synchronous ?? true}
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
  initdb:
  - encoding: UTF8
  - data-checksums
  pg_hba:
  - host replication replicator 127.0.0.1/32 scram-sha-256
  - host all all 127.0.0.1/32 scram-sha-256
postgresql:
  listen: 127.0.0.1:${node.port}
  connect_address: 127.0.0.1:${node.port}
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

/** etcd's command line: one member on loopback, the store Patroni elects its leader in. */
export function etcdArgs(options: {
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
}): string[] {
  const client = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  return [
    '--name=fleet',
    `--data-dir=${options.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=fleet=${peer}`,
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
    .map((node) => `  server ${node.name} 127.0.0.1:${node.port} check port ${node.restPort}`)
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
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}

listen postgres-replicas
  mode tcp
  bind 127.0.0.1:${options.readPort}
  balance roundrobin
  option httpchk GET /replica
  http-check expect status 200
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${pgServers}

listen api
  mode http
  bind 127.0.0.1:${options.apiPort}
  balance roundrobin
  option httpchk GET /livez
  timeout client 60s
  timeout server 60s
  default-server inter 1s fall 2 rise 1
${apiServers}
`;
}
