// A process that drains for DRAIN_MS on its first shutdown signal (test/unit/shutdown-signals.test.ts).
import { pino } from 'pino';
import { onShutdownSignal } from '../../src/cli/process-lifecycle.js';

const logger = pino({ level: 'info' });
onShutdownSignal(logger, 60_000, async () => {
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.DRAIN_MS ?? 1000)));
  logger.info('drained');
});
logger.info('ready');
setInterval(() => {}, 1 << 30);
