import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

// A collector that accepts connections and never answers: the exporter's retries never end.
const held: Socket[] = [];
const silent = createServer((socket) => held.push(socket));
await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((closed) => silent.close(closed));
});

describe('the last spans on Ctrl-C', () => {
  it('are given a short bound when the collector does not answer: the process exits 0', async () => {
    const { port } = silent.address() as AddressInfo;
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/trace-shutdown-child.ts'],
      {
        env: { ...process.env, COLLECTOR_URL: `http://127.0.0.1:${port}/v1/traces` },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    let out = '';
    await new Promise<void>((ready) =>
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"msg":"ready"')) ready();
      }),
    );
    proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).not.toContain('shutdown timed out');
  }, 30_000);
});
