// A process whose spans go to COLLECTOR_URL (a collector that never answers), stopped as the
// services stop: its exporter shut down last (test/unit/traces-shutdown.test.ts).
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { onShutdownSignal } from '../../src/cli/process-lifecycle.js';
import { startTraceExport } from '../../src/observability/trace-export.js';

const logger = pino({ level: 'info' });
const traces = startTraceExport({
  to: { url: process.env.COLLECTOR_URL! },
  serviceName: 'shutdown-child',
  sampler: 'always_on',
  ratio: 1,
});
trace.getTracer('test').startSpan('unsent').end();
// SHUTDOWN_TIMEOUT_MS 0: the forced exit comes when only the margin is left, as it would be.
onShutdownSignal(logger, 0, () => traces.shutdown());
logger.info('ready');
setInterval(() => {}, 1 << 30);
