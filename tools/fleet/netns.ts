import { execFile, spawnSync } from 'node:child_process';

/**
 * The partition drill's network: one bridge in this namespace and a network namespace per node,
 * joined to it by a veth pair. Every name starts with {@link NETNS_PREFIX}, so whatever a crashed
 * run left behind is found and removed by name; every address is inside {@link SUBNET}, on the
 * bridge this module makes, and nothing is routed anywhere else.
 */
export const NETNS_PREFIX = 'tapn-';
/** The bridge every namespace's veth is a port of. */
export const BRIDGE = `${NETNS_PREFIX}br0`;
/** The test subnet's first three octets (a /24 that exists only on {@link BRIDGE}). */
export const SUBNET = '10.200.0';
/** This (the root) namespace's address on the bridge: HAProxy, the API replicas and the tests. */
export const BRIDGE_HOST = `${SUBNET}.1`;

/** One namespace of the fleet: its name, the host-side veth and its address on the bridge. */
export interface NetnsHost {
  readonly netns: string;
  readonly veth: string;
  readonly address: string;
}

/** How long one `ip`/`iptables` command may take: a wedged one is killed, never waited on. */
const COMMAND_TIMEOUT_MS = 30_000;

/** Runs one `ip`/`iptables` command; throws with its stderr unless it succeeded or `tolerant`. */
export function run(command: string, args: readonly string[], tolerant = false): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
  if (result.status !== 0 && !tolerant) {
    throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.error?.message}`);
  }
  return result.stdout ?? '';
}

/**
 * {@link run} without blocking the caller's event loop: for a driver whose own clock is measuring
 * something meanwhile (the drills' load times every answer on that loop). A failure `fine` accepts
 * (by exit code and stderr) is success; a command killed at the timeout never is.
 */
export function runAsync(
  command: string,
  args: readonly string[],
  fine: (code: number, stderr: string) => boolean = () => false,
) {
  return new Promise<string>((resolve, reject) => {
    const options = {
      encoding: 'utf8',
      timeout: COMMAND_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    } as const;
    execFile(command, args, options, (error, stdout, stderr) => {
      const code = typeof error?.code === 'number' ? error.code : undefined;
      if (!error || (!error.killed && code !== undefined && fine(code, stderr))) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')}: ${stderr || error.message}`));
    });
  });
}

/** The namespace and address of the node called `name` (its address: SUBNET.`octet`). */
export function hostOf(name: string, octet: number): NetnsHost {
  return {
    netns: `${NETNS_PREFIX}${name}`,
    veth: `${NETNS_PREFIX}${name}`,
    address: `${SUBNET}.${octet}`,
  };
}

/** Makes the bridge (address {@link BRIDGE_HOST}), after removing what a crashed run left. */
export function createBridge(): void {
  removeNetwork();
  run('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${BRIDGE_HOST}/24`, 'dev', BRIDGE]);
  run('ip', ['link', 'set', BRIDGE, 'up']);
}

/** Makes `host`'s namespace: loopback up, `eth0` on the bridge with its address. */
export function addHost(host: NetnsHost): void {
  run('ip', ['netns', 'add', host.netns]);
  run('ip', [
    'link',
    'add',
    host.veth,
    'type',
    'veth',
    'peer',
    'name',
    'eth0',
    'netns',
    host.netns,
  ]);
  run('ip', ['link', 'set', host.veth, 'master', BRIDGE, 'up']);
  run('ip', ['-n', host.netns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
  run('ip', ['-n', host.netns, 'link', 'set', 'eth0', 'up']);
  run('ip', ['-n', host.netns, 'link', 'set', 'lo', 'up']);
}

/** `command args` run inside `netns` (as root: `ip netns exec` replaces itself by the command). */
export function inNetns(
  netns: string,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return ['ip', ['netns', 'exec', netns, command, ...args]];
}

/** The namespaces and links named with {@link NETNS_PREFIX} that exist now. */
export function leftovers(): { readonly namespaces: string[]; readonly links: string[] } {
  const namespaces = run('ip', ['netns', 'list'], true)
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => name.startsWith(NETNS_PREFIX));
  const links = run('ip', ['-o', 'link', 'show'], true)
    .split('\n')
    .map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(NETNS_PREFIX));
  return { namespaces, links };
}

/**
 * Removes every namespace and link named with the prefix (their iptables rules live inside the
 * namespaces and go with them). Call after the processes inside have stopped.
 */
export function removeNetwork(): void {
  const { namespaces, links } = leftovers();
  for (const netns of namespaces) run('ip', ['netns', 'del', netns], true);
  // A veth goes with its namespace's peer; the bridge and any stray link go here.
  for (const link of leftovers().links.concat(links)) run('ip', ['link', 'del', link], true);
}
