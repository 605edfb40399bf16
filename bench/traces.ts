import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { measureTwin, type TwinOptions } from './twin.js';

/** One run: the sampling ratio (0: tracing off), its throughput, its ratio to the untraced run's. */
export interface TracedRun {
  readonly sampled: number;
  readonly rps: number;
  readonly ofUntraced: number;
  /** What the collector received, in bytes (spans of sampled requests only). */
  readonly exportedBytes: number;
}

/** `--traces=0.01,1`: the sampling ratios to run with (0 < r ≤ 1); empty: none. */
export function tracedRatios(option: string | undefined): number[] {
  if (!option) return [];
  return option.split(',').map((text) => {
    const ratio = Number(text);
    if (!(ratio > 0 && ratio <= 1)) throw new Error(`--traces: ${text} is not a ratio in (0, 1]`);
    return ratio;
  });
}

// A collector that keeps nothing: it answers every export with 200 and counts the bytes, so the
// cost measured is the service's own (making, batching, encoding and sending spans).
async function startNullCollector() {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The private-token endpoint again, on a service started with tracing off and then once per ratio
 * on one with traces sampled at that ratio and sent to a local collector, each started, warmed and
 * loaded the same way: a service just started is slower for a while than the main run's, so the
 * ratios are to its own untraced twin. The projector of the main service projects them all.
 */
export async function measureTraced(
  options: TwinOptions & { readonly ratios: readonly number[] },
): Promise<TracedRun[]> {
  const runs: TracedRun[] = [];
  const collector = await startNullCollector();
  try {
    for (const sampled of options.ratios.length > 0 ? [0, ...options.ratios] : []) {
      const before = collector.bytes();
      const run = await measureTwin(
        options,
        sampled === 0 ? 'tracing off' : `traces sampled at ${sampled}`,
        sampled === 0
          ? {}
          : {
              OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
              OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
              OTEL_TRACES_SAMPLER_ARG: String(sampled),
            },
      );
      runs.push({
        sampled,
        rps: run.rps,
        ofUntraced: run.rps / (runs[0]?.rps ?? run.rps),
        exportedBytes: collector.bytes() - before,
      });
    }
  } finally {
    await collector.close();
  }
  return runs;
}

/** The report's section for the traced runs. */
export function tracedSection(runs: readonly TracedRun[]): string {
  const rows = runs.map(
    (run) =>
      `| ${run.sampled === 0 ? 'off' : `${run.sampled * 100} %`} | ${Math.round(run.rps)} | ${run.ofUntraced.toFixed(3)} | ${run.exportedBytes} |`,
  );
  return [
    '## Traces (`--traces`)',
    '',
    'The private-token endpoint on services started one after the other after the main runs, each warmed and loaded alike: the first with tracing off (the default), the others sending OpenTelemetry traces sampled at each ratio to a local collector that keeps nothing. Ratios are to the first.',
    '',
    '| sampled | req/s | of tracing off | bytes exported |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
