import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/net/free-port.js';

/** A running `npm run witness`: its base URL, the verifier key it printed, the process. */
export interface WitnessProcess {
  readonly url: string;
  readonly vkey: string;
  readonly child: ChildProcess;
}

/** Starts `npm run witness` with `--name`, the `--log` entries and `--dir` given. */
export async function startWitnessProcess(options: {
  readonly name: string;
  readonly logs: readonly string[];
  readonly dir: string;
  /** A port of its own (default: any free one). */
  readonly port?: number;
}): Promise<WitnessProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/witness.ts',
      `--name=${options.name}`,
      ...options.logs.map((log) => `--log=${log}`),
      `--port=${port}`,
      `--dir=${options.dir}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const vkey = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = /its verifier key: (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`witness exited ${code}: ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, vkey, child };
}
