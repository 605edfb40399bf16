import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** Where a fleet keeps its state, data and logs: outside the clone, so `postgres` can reach it. */
export const DEFAULT_FLEET_DIR = '/tmp/token-authority-fleet';

const pgNode = z.object({
  name: z.string(),
  port: z.number().int(),
  restPort: z.number().int(),
  dataDir: z.string(),
  patroniPid: z.number().int(),
  /** Its address: loopback, or its own on the partition drill's bridge (tools/fleet/netns.ts). */
  host: z.string().default('127.0.0.1'),
  /** The network namespace it runs in (the partition drill's form only). */
  netns: z.string().optional(),
});

const etcdMember = z.object({
  name: z.string(),
  pid: z.number().int(),
  host: z.string(),
  clientPort: z.number().int(),
  netns: z.string().optional(),
});

/** What `fleet up` started, kept in `<dir>/fleet.json` for `status` and `down`. */
export const fleetStateSchema = z.object({
  dir: z.string(),
  superuserPassword: z.string(),
  /** The first etcd member (the only one on loopback). */
  etcd: z.object({ pid: z.number().int(), clientPort: z.number().int() }),
  /** Every etcd member (three in namespaces in the partition drill's form). */
  etcdMembers: z.array(etcdMember).default([]),
  /** Whether the nodes run in network namespaces on a bridge (`fleet up --netns`). */
  netns: z.boolean().default(false),
  haproxy: z.object({
    pid: z.number().int(),
    writePort: z.number().int(),
    readPort: z.number().int(),
    apiPort: z.number().int(),
  }),
  pg: z.array(pgNode),
  apis: z.array(z.object({ pid: z.number().int(), port: z.number().int() })),
  projectors: z.array(z.object({ pid: z.number().int() })),
});
export type FleetState = z.infer<typeof fleetStateSchema>;
export type PgNode = z.infer<typeof pgNode>;
export type EtcdMember = z.infer<typeof etcdMember>;

const stateFile = (dir: string) => path.join(dir, 'fleet.json');

/** The state of the fleet in `dir`, if one was started there. */
export async function readFleetState(dir: string): Promise<FleetState | undefined> {
  if (!existsSync(stateFile(dir))) return undefined;
  return fleetStateSchema.parse(JSON.parse(await readFile(stateFile(dir), 'utf8')));
}

/** Records what was started (mode 600: it holds the superuser's password). */
export async function writeFleetState(state: FleetState): Promise<void> {
  await writeFile(stateFile(state.dir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** A connection URL through the fleet's HAProxy (writes go to the Patroni leader). */
export function ownerUrl(state: Pick<FleetState, 'superuserPassword' | 'haproxy'>): string {
  return `postgres://postgres:${state.superuserPassword}@127.0.0.1:${state.haproxy.writePort}/token_authority`;
}
