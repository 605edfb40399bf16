import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/net/free-port.js';

/** A running `npm run witness`: its base URL, the verifier key it printed, the process. */
export interface WitnessProcess {
  readonly url: string;
  readonly vkey: string;
  readonly child: ChildProcess;
  /** What it printed on stdout so far. */
  readonly output: () => string;
}

/** How to start one: `--name`, the `--log` entries, `--dir`, and any further arguments. */
export interface WitnessOptions {
  readonly name: string;
  readonly logs: readonly string[];
  readonly dir: string;
  /** A port of its own (default: any free one). */
  readonly port?: number;
  /** More arguments, e.g. `--host=…` or `--max-origins=…`. */
  readonly args?: readonly string[];
}

function spawnWitness(options: WitnessOptions, port: number): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/witness.ts',
      `--name=${options.name}`,
      ...options.logs.map((log) => `--log=${log}`),
      `--port=${port}`,
      `--dir=${options.dir}`,
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** Starts `npm run witness` and resolves once it printed its verifier key (it listens then). */
export async function startWitnessProcess(options: WitnessOptions): Promise<WitnessProcess> {
  const port = options.port ?? (await freePort());
  const child = spawnWitness(options, port);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk;
    process.stderr.write(chunk);
  });
  const vkey = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = /its verifier key: (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`witness exited ${code}: ${out}${err}`)));
  });
  return { url: `http://127.0.0.1:${port}`, vkey, child, output: () => out };
}

/**
 * Runs `npm run witness` expecting it to refuse to start: its exit code and what it printed on
 * stderr. One that starts instead is stopped, and its exit code is reported as 'started'.
 */
export async function witnessRefusal(
  options: WitnessOptions,
): Promise<{ readonly code: number | 'started'; readonly stderr: string }> {
  const child = spawnWitness(options, options.port ?? (await freePort()));
  let stderr = '';
  let started = false;
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdout!.on('data', (chunk: Buffer) => {
    if (/its verifier key: /.test(String(chunk))) {
      started = true;
      child.kill('SIGTERM');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code: started ? 'started' : (code ?? -1), stderr };
}
