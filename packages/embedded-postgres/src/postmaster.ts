import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { EmbeddedPostgresLogger } from './logger.js';
import type { Identity } from './os-user.js';

/** Runs a Postgres tool (initdb) to completion as `who`; rejects with its output on failure. */
export function runTool(
  command: string,
  args: readonly string[],
  who: Identity | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...who, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`${path.basename(command)} exited with ${code}: ${output.slice(-2000)}`),
          ),
    );
  });
}

/** Starts the postmaster on `dataDir` and resolves once it accepts connections. */
export async function spawnPostmaster(options: {
  readonly binDir: string;
  readonly dataDir: string;
  readonly port: number;
  readonly runAs: Identity | undefined;
  readonly logger: EmbeddedPostgresLogger;
  readonly settings?: Readonly<Record<string, string>>;
}): Promise<ChildProcess> {
  const child = spawn(
    path.join(options.binDir, 'postgres'),
    [
      '-D',
      options.dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'synchronous_commit=on',
      '-c',
      'max_connections=200',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
        '-c',
        `${name}=${value}`,
      ]),
    ],
    // Own process group: Ctrl-C reaches us, and we stop Postgres last, after draining requests.
    { ...options.runAs, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  await waitUntilReady(child, options.logger);
  return child;
}

function waitUntilReady(child: ChildProcess, logger: EmbeddedPostgresLogger): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGQUIT');
      reject(new Error(`embedded Postgres did not become ready in 60s:\n${log.slice(-2000)}`));
    }, 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (log.length < 100_000) log += text;
      for (const line of text.split('\n')) if (line.trim()) logger.debug({ postgres: line.trim() });
      if (!ready && text.includes('database system is ready to accept connections')) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!ready) {
        reject(
          new Error(
            `embedded Postgres exited during start-up (code ${code}):\n${log.slice(-2000)}`,
          ),
        );
      }
    });
  });
}

/** Fast shutdown of our own postmaster; SIGQUIT if it has not stopped after 15 s. */
export async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, checkpoints, exits
  const escalate = setTimeout(() => child.kill('SIGQUIT'), 15_000);
  await exited;
  clearTimeout(escalate);
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The same shutdown for a postmaster we did not start (an adopted orphan), by pid. */
export async function stopByPid(pid: number): Promise<void> {
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid) && waited < 30_000; waited += 100) {
    if (waited === 15_000) process.kill(pid, 'SIGQUIT');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
