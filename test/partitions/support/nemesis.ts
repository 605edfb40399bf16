import { runAsync } from '../../../tools/fleet/netns.js';
import { PATRONI_TTL_SECONDS } from '../../../tools/fleet/configs.js';

/** A node of the fleet as the nemesis sees it: its namespace, address and Patroni role. */
export interface Host {
  readonly name: string;
  readonly netns: string;
  readonly address: string;
  readonly role: string;
}

/** One iptables rule inside one namespace (added with -A, removed with -D). */
interface Rule {
  readonly netns: string;
  readonly spec: readonly string[];
}

/** The faults the drill throws (issue 44). */
export const FAULTS = [
  'leader-isolated',
  'leader-cut-from-etcd',
  'sync-standby-cut-from-leader',
  'majority-minority-split',
  'leader-one-way',
] as const;
export type FaultName = (typeof FAULTS)[number];

const dropBoth = (netns: string, peer: string): Rule[] => [
  { netns, spec: ['INPUT', '-s', peer, '-j', 'DROP'] },
  { netns, spec: ['OUTPUT', '-d', peer, '-j', 'DROP'] },
];

/** The rules of `fault` against the fleet as it is now (`pg` by Patroni role, `etcd`). */
export function rulesOf(fault: FaultName, pg: readonly Host[], etcd: readonly Host[]): Rule[] {
  const leader = pg.find((node) => node.role === 'leader');
  if (!leader) throw new Error(`${fault}: no leader to aim at`);
  const others = pg.filter((node) => node !== leader);
  switch (fault) {
    case 'leader-isolated':
      // From everyone: etcd, the other nodes, HAProxy and the APIs (the bridge's own address).
      return [
        { netns: leader.netns, spec: ['INPUT', '-i', 'eth0', '-j', 'DROP'] },
        { netns: leader.netns, spec: ['OUTPUT', '-o', 'eth0', '-j', 'DROP'] },
      ];
    case 'leader-cut-from-etcd':
      return etcd.flatMap((member) => dropBoth(leader.netns, member.address));
    case 'sync-standby-cut-from-leader': {
      const standby = others.find((node) => node.role === 'sync_standby') ?? others[0]!;
      return dropBoth(standby.netns, leader.address);
    }
    case 'majority-minority-split': {
      // The leader and one etcd member against the rest; clients still reach both sides.
      const minority = [leader, etcd.at(-1)!];
      const majority = [...others, ...etcd.slice(0, -1)];
      return minority.flatMap((host) =>
        majority.flatMap((peer) => dropBoth(host.netns, peer.address)),
      );
    }
    case 'leader-one-way':
      // Packets from the leader dropped; packets to it delivered.
      return [{ netns: leader.netns, spec: ['OUTPUT', '-o', 'eth0', '-j', 'DROP'] }];
  }
}

/** A fault in force: heal() removes exactly the rules it added. */
export interface ActiveFault {
  readonly name: FaultName;
  readonly startedAt: number;
  readonly aimedAt: string;
  heal(): Promise<void>;
}

/** iptables' answer to removing a rule that is not there (exit 1, as for any other failure). */
const NO_SUCH_RULE = /Bad rule|does a matching rule exist/;

/**
 * `iptables` in `rule`'s namespace, waiting at most 10 s for the xtables lock. Removing a rule that
 * is not there is fine (a heal may run twice); any other failure throws.
 */
const iptables = (rule: Rule, action: '-A' | '-D') =>
  runAsync(
    'ip',
    ['netns', 'exec', rule.netns, 'iptables', '-w', '10', action, ...rule.spec],
    (code, stderr) => action === '-D' && code === 1 && NO_SUCH_RULE.test(stderr),
  );

/** Takes out what of `rules` is still in, every one tried; the ones that would not go remain. */
async function remove(rules: Rule[]): Promise<void> {
  const failures: unknown[] = [];
  for (const rule of [...rules]) {
    try {
      await iptables(rule, '-D');
      rules.splice(rules.indexOf(rule), 1);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, 'rules that would not go');
}

let injected = 0;

/**
 * Adds `fault`'s rules now; its heal() takes them out again, and after a failure only what is
 * still in. Never synchronous: the drill's load times its answers on the same event loop, and a
 * blocked loop reads as answers that hung (CI once saw six 503s "after" 19.6-22.8 s, all in
 * flight at once, with spawnSync here). A rule that fails to go in takes the fault's rules out,
 * itself too (it may be in).
 */
export async function inject(
  fault: FaultName,
  pg: readonly Host[],
  etcd: readonly Host[],
): Promise<ActiveFault> {
  // Each rule tagged with its fault: `-D` takes out this fault's, never an identical one of another.
  const tag = ['-m', 'comment', '--comment', `tapn-fault-${++injected}`];
  const rules = rulesOf(fault, pg, etcd).map((rule) => ({ ...rule, spec: [...rule.spec, ...tag] }));
  const startedAt = Date.now();
  const inForce: Rule[] = [];
  for (const rule of rules) {
    inForce.push(rule);
    try {
      await iptables(rule, '-A');
    } catch (error) {
      const undone = await remove(inForce).then(
        () => [],
        (failure: AggregateError) => failure.errors,
      );
      throw new AggregateError([error, ...undone], `${fault}: a rule would not go in`);
    }
  }
  return {
    name: fault,
    startedAt,
    aimedAt: pg.find((node) => node.role === 'leader')!.name,
    heal: () => remove(inForce),
  };
}

/** A small seeded generator (mulberry32), so a schedule can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One step of a schedule: a fault, how long it is held, and whether the previous heals under it. */
export interface Step {
  readonly fault: FaultName;
  readonly holdMs: number;
  /** Injected while the previous step's fault is still in force; that one heals 2 s later. */
  readonly overlapsPrevious: boolean;
}

/**
 * The schedule for `seed`: every fault once on its own, then every fault again each injected
 * while the previous one heals; repeated (in seeded order) until `minutes` of faults are planned.
 * Each hold is 5–15 s longer than Patroni's TTL, so Patroni acts on every fault.
 */
export function schedule(seed: number, minutes: number): Step[] {
  const random = seeded(seed);
  const shuffled = () => [...FAULTS].sort(() => random() - 0.5);
  const hold = () => (PATRONI_TTL_SECONDS + 5) * 1000 + Math.floor(random() * 10_000);
  const steps: Step[] = [];
  let planned = 0;
  for (let round = 0; round === 0 || planned < minutes * 60_000; round += 1) {
    for (const fault of shuffled()) {
      steps.push({ fault, holdMs: hold(), overlapsPrevious: false });
    }
    for (const [i, fault] of shuffled().entries()) {
      steps.push({ fault, holdMs: hold(), overlapsPrevious: i > 0 });
    }
    planned = steps.reduce((sum, step) => sum + step.holdMs, 0);
  }
  return steps;
}
