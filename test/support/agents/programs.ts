import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterFile } from '../after-file.js';
import { waitUntil } from '../wait.js';

/**
 * One program of the issue 55 flow as a process of its own (`node --import tsx <script>`), on a
 * port chosen by the test, stopped after the file. Resolves once its `/healthz` answers 200;
 * throws if it exits first, with its stderr (inherited) already printed.
 */
export async function startProgram(
  script: string,
  port: number,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(script)], {
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  afterFile(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
    },
    (status) => status === 200,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return child;
}

/** POSTs JSON to one of the programs and reads its JSON answer. */
export async function postJson<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200)
    throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
