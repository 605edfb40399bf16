import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { commandLine, descendants } from '../tools/reliability/proc.js';
import type { CpuGroups } from './cpu.js';

const root = path.resolve(import.meta.dirname, '..');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children: ChildProcess[] = [];

/** Starts one of our scripts (or a reference) as its own process, its logs consumed. */
export function startProcess(
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): ChildProcess {
  const child = spawn(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', path.join(root, script)],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (!/WARNING|NOTICE/.test(text)) process.stderr.write(`[${path.basename(script)}] ${text}`);
  });
  child.stdout?.resume(); // the API's access log: consumed (as a log shipper would), not shown
  children.push(child);
  return child;
}

/** Resolves once `url` answers below 500. */
export async function waitFor(url: string, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = await fetch(url, init).then(
      (response) => response.status,
      () => 0,
    );
    if (status > 0 && status < 500) return;
    await pause(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Stops every process started here. */
export function stopAll(): void {
  for (const child of children) child.kill('SIGTERM');
}

/**
 * The CPU groups of a service started as npm start runs it: the API is its process and its API
 * workers, the projector its other children (the audit deliverer too), and the load generator
 * this process. Also counts the API processes (npm start's own process only supervises when
 * there are workers).
 */
export async function serviceGroups(rootPid: number): Promise<{
  readonly groups: CpuGroups;
  readonly apiProcesses: number;
  /** The API processes that serve requests (not npm start's supervisor), for their event loops. */
  readonly servers: () => readonly number[];
}> {
  const pids = [rootPid, ...(await descendants(rootPid))];
  const projector: number[] = [];
  const api: number[] = [];
  const servers: number[] = [];
  for (const pid of pids) {
    const command = await commandLine(pid);
    // The deliverer, like the projector, follows the log behind the API: its CPU is counted there.
    (/projector|\/cli\/deliver\.[tj]s/.test(command) ? projector : api).push(pid);
    if (/\/cli\/api\.[tj]s/.test(command)) servers.push(pid);
  }
  return {
    groups: { api: () => api, projector: () => projector, 'load generator': () => [process.pid] },
    apiProcesses: Math.max(1, servers.length),
    servers: () => servers,
  };
}
