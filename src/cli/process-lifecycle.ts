import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import { exitOnConfigError } from '#settings/command-line.js';
import type { OpenDatabase } from './runtime.js';

/**
 * When a stopping process is made to exit: the drain's SHUTDOWN_TIMEOUT_MS, and a margin for what
 * follows it (the pool, the projector's last checkpoint). A deployment's grace period must exceed
 * it, or the engine's SIGKILL comes first (test/unit/compose.test.ts holds both to it).
 */
export function forcedExitAfterMs(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs + 5000;
}

/**
 * A signal this soon after the first is the same press arriving twice: Ctrl-C reaches every
 * process of the terminal's group, and a wrapper such as tsx also relays the one it received.
 */
export const SIGNAL_ECHO_MS = 1000;

/**
 * Runs `shutdown` once on SIGINT or SIGTERM, then exits; a second signal (at least
 * `SIGNAL_ECHO_MS` after the first) or the timeout forces the exit, so a stuck drain never hangs.
 * The returned function starts the same shutdown for other reasons (a parent's request), once.
 */
export function onShutdownSignal(
  logger: Logger,
  timeoutMs: number,
  shutdown: (reason: string) => Promise<void>,
): (reason: string) => void {
  let stopping = false;
  let firstSignalAt = 0;
  const begin = (reason: string) => {
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const force = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out: exiting');
      process.exit(1);
    }, forcedExitAfterMs(timeoutMs));
    force.unref();
    shutdown(reason).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    const now = performance.now();
    if (!stopping) {
      firstSignalAt = now;
      return begin(signal);
    }
    if (firstSignalAt === 0) firstSignalAt = now;
    if (now - firstSignalAt < SIGNAL_ECHO_MS) return;
    logger.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return (reason) => {
    if (!stopping) begin(reason);
  };
}

/**
 * A long-running process (the API, the projector, the deliverer): its database opened, `start`
 * run on it, and on a signal what `start` returned, then the database, stopped. As a child of
 * `npm start` it also stops when the parent asks over IPC or is gone, so none outlives it. A stop
 * is heard before starting: a child may be asked while it starts.
 */
export async function runService(
  config: Config,
  logger: Logger,
  open: () => Promise<OpenDatabase>,
  start: (database: OpenDatabase) => Promise<(reason: string) => Promise<void>>,
): Promise<void> {
  const started: { database?: OpenDatabase; stop?: (reason: string) => Promise<void> } = {};
  const stop = onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async (reason) => {
    await started.stop?.(reason);
    await started.database?.close();
  });
  if (process.send) {
    process.on('message', (message) => message === 'shutdown' && stop('parent asked'));
    process.on('disconnect', () => stop('parent gone'));
    // The parent may have died while we were still starting, before the listener existed.
    if (!process.connected) stop('parent gone');
  }
  started.database = await open().catch(exitOnConfigError);
  started.stop = await start(started.database).catch(exitOnConfigError);
}
