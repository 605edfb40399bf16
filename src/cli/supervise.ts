import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';

/** A child process kept running, and how to stop it for good. */
export interface Supervised {
  /** The running child, if any (between a crash and its restart there is none). */
  current(): ChildProcess | undefined;
  /** Asks the child to stop (over IPC, else SIGTERM) and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `spawnChild` and starts it again whenever it exits on its own, after a backoff that
 * doubles from 250 ms up to 10 s and resets once a child has lived for a minute.
 */
export function supervise(
  name: string,
  spawnChild: () => ChildProcess,
  logger: Logger,
  graceMs = 5000,
): Supervised {
  let stopping = false;
  let child: ChildProcess | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  const start = () => {
    const startedAt = Date.now();
    const running = spawnChild();
    child = running;
    running.once('exit', (code, signal) => {
      if (child === running) child = undefined;
      if (stopping) return;
      failures = Date.now() - startedAt > 60_000 ? 1 : failures + 1;
      const delayMs = Math.min(250 * 2 ** (failures - 1), 10_000);
      logger.error(
        { child: name, code, signal, restartInMs: delayMs },
        `${name} exited; restarting it`,
      );
      restartTimer = setTimeout(start, delayMs);
    });
  };
  start();

  return {
    current: () => child,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      if (running.connected) running.send('shutdown');
      else running.kill('SIGTERM');
      // A child that missed the message (still starting, say) gets the signal.
      const nudge = setTimeout(() => running.kill('SIGTERM'), graceMs);
      await exited;
      clearTimeout(nudge);
    },
  };
}
