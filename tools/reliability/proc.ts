import { readdir, readFile } from 'node:fs/promises';

/**
 * What Linux /proc says about processes: the one parser of /proc/<pid>/stat, used by the
 * benchmark, the chaos and soak commands and the process tests. Elsewhere every answer is empty.
 */

/** The fields of /proc/<pid>/stat after the command name (which may itself hold spaces). */
async function statFields(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (stat === '') return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// Field positions (0-based, after the command name): state 0, ppid 1, utime 11, stime 12,
// cutime 13, cstime 14 (reaped children), rss 21.
const CLOCK_TICKS = 100;
const PAGE_BYTES = 4096;

/** Every pid now in /proc. */
export async function allPids(): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  return entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** CPU seconds (user + system) the process has used, 0 when it is gone. */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = await statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS : 0;
}

/** Resident memory in bytes, 0 when the process is gone. */
export async function residentBytes(pid: number): Promise<number> {
  const fields = await statFields(pid);
  return fields ? Number(fields[21]) * PAGE_BYTES : 0;
}

/**
 * Proportional set size in bytes: resident memory with each shared page divided among the
 * processes sharing it, so summing it over Postgres's backends does not count shared buffers once
 * per backend. Falls back to RSS where smaps_rollup is missing; 0 when the process is gone.
 */
export async function proportionalBytes(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
  return pss ? Number(pss[1]) * 1024 : residentBytes(pid);
}

/** Running, not merely a zombie waiting to be reaped. */
export async function isRunning(pid: number): Promise<boolean> {
  const fields = await statFields(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/** The command line, arguments joined by spaces ('' when gone). */
export async function commandLine(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ');
}

/** Pids whose executable name (comm) is exactly `name`, e.g. every `postgres` backend. */
export async function pidsNamed(name: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await allPids()) {
    const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === name) found.push(pid);
  }
  return found;
}

/** Every process descended from `root`. */
export async function descendants(root: number): Promise<number[]> {
  const parentOf = new Map<number, number>();
  for (const pid of await allPids()) {
    const fields = await statFields(pid);
    if (fields) parentOf.set(pid, Number(fields[1]));
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf) {
      if (parent !== pid) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

/**
 * CPU seconds used by a family of processes named `name` (Postgres: the postmaster and its
 * backends), including children that have exited since: the kernel adds a reaped child's time
 * to its parent's cutime/cstime, which a sum over live processes would lose.
 */
export async function familyCpuSeconds(name: string): Promise<number> {
  const pids = await pidsNamed(name);
  const members = new Set(pids);
  let total = 0;
  for (const pid of pids) {
    const fields = await statFields(pid);
    if (!fields) continue;
    total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    // The root of the family (its parent is not one of them) also carries its reaped children.
    if (!members.has(Number(fields[1]))) {
      total += (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
    }
  }
  return total;
}

/** Total CPU seconds of a set of processes. */
export async function totalCpuSeconds(pids: readonly number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += await cpuSeconds(pid);
  return total;
}

/** Seconds a thread spent on a core, and runnable but waiting for one. */
export interface ThreadTimes {
  readonly running: number;
  readonly waiting: number;
}

/**
 * The processes' main threads, summed: for Node, the event loop, without the thread pool, the
 * garbage collector's helpers and the loader. From /proc/<pid>/task/<pid>/schedstat (scheduler
 * nanoseconds); a process that is gone counts 0.
 */
export async function mainThreadTimes(pids: readonly number[]): Promise<ThreadTimes> {
  let running = 0;
  let waiting = 0;
  for (const pid of pids) {
    const line = await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').catch(() => '');
    const [run, wait] = line.trim().split(' ').map(Number);
    if (Number.isFinite(run) && Number.isFinite(wait)) {
      running += run! / 1e9;
      waiting += wait! / 1e9;
    }
  }
  return { running, waiting };
}
