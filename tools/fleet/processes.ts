import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';

/** A user to run a child as (Postgres refuses root). */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Starts `command` in its own process group, detached, its output appended to `logFile`, so it
 * outlives `fleet up`. Returns its pid.
 */
export function startDetached(
  command: string,
  args: readonly string[],
  options: {
    readonly logFile: string;
    readonly env?: NodeJS.ProcessEnv;
    readonly cwd?: string;
    readonly runAs?: RunAs;
  },
): number {
  const log = openSync(options.logFile, 'a');
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', log, log],
    env: options.env ?? process.env,
    cwd: options.cwd,
    ...(options.runAs ?? {}),
  });
  if (child.pid === undefined) throw new Error(`${command} did not start (see ${options.logFile})`);
  child.unref();
  return child.pid;
}

/** Whether a process is alive (a zombie or a gone pid is not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops each process group (SIGTERM, then SIGKILL after `graceMs`); resolves once none is left.
 */
export async function stopAll(pids: readonly number[], graceMs = 10_000): Promise<void> {
  const signal = (pid: number, name: NodeJS.Signals) => {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, name);
      } catch {
        // already gone
      }
    }
  };
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const pid of pids.filter(isAlive)) signal(pid, 'SIGKILL');
}

/** Polls `probe` until it returns true; throws `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}
