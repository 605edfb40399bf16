import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SIGNAL_ECHO_MS } from '../../src/cli/process-lifecycle.js';

/** Starts the child, and resolves each awaited log message as it appears. */
function child(drainMs: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/support/shutdown-child.ts'], {
    env: { ...process.env, DRAIN_MS: String(drainMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) messages.push((JSON.parse(line) as { msg: string }).msg);
    waiters.splice(0).forEach((wake) => wake());
  });
  const logged = async (msg: string) => {
    while (!messages.includes(msg)) await new Promise<void>((wake) => waiters.push(wake));
  };
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return { proc, messages, logged, exited };
}

describe('onShutdownSignal (one Ctrl-C is one drain)', () => {
  it('drains once when the same press arrives twice (the terminal and a relaying wrapper)', async () => {
    const { proc, messages, logged, exited } = child(1500);
    await logged('ready');
    proc.kill('SIGINT');
    // The relayed copy arrives once the first was handled (two pending SIGINTs would merge).
    await logged('shutting down');
    proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(messages).toContain('drained');
    expect(messages).not.toContain('second signal: exiting now');
    expect(messages.filter((m) => m === 'shutting down')).toHaveLength(1);
  });

  it('hurries the exit on a second press made later', async () => {
    const { proc, messages, logged, exited } = child(60_000);
    await logged('ready');
    proc.kill('SIGINT');
    await logged('shutting down');
    await new Promise((resolve) => setTimeout(resolve, SIGNAL_ECHO_MS + 200));
    proc.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(messages).toContain('second signal: exiting now');
    expect(messages).not.toContain('drained');
  });
});
