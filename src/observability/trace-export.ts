import { createRequire } from 'node:module';
import { TraceFlags, context, propagation, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { turnTracingOff, turnTracingOn } from './tracing.js';

/** What starts the exporter: the OTEL_* settings as configuration validated them. */
export interface TraceExportOptions {
  /** Where spans go: an OTLP/HTTP URL (protobuf), or `console`. */
  readonly to: { readonly url: string } | 'console';
  readonly serviceName: string;
  readonly sampler: string;
  readonly ratio: number;
  /** Hashes customer ids in spans (the deployment's key). */
  readonly idKey?: Buffer;
}

/** The running exporter; shut down last, so the spans of the last requests are sent. */
export interface TraceExport {
  /** Sends every ended span now (tests, and before exit). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The sampler the settings name, keeping every span that links a recorded trace. */
function samplerOf(name: string, ratio: number): Sampler {
  const root = name.endsWith('traceidratio')
    ? new TraceIdRatioBasedSampler(ratio)
    : name.endsWith('always_off')
      ? new AlwaysOffSampler()
      : new AlwaysOnSampler();
  const chosen = name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
  // A projector batch or a delivery is a root of its own, linked to the requests it served: judged
  // by the ratio alone, a sampled issuance's trace would lose them 99 times in 100 at 1 %.
  return {
    shouldSample: (context, traceId, spanName, spanKind, attributes, links) =>
      links.some((link) => (link.context.traceFlags & TraceFlags.SAMPLED) !== 0)
        ? { decision: SamplingDecision.RECORD_AND_SAMPLED }
        : chosen.shouldSample(context, traceId, spanName, spanKind, attributes, links),
    toString: () => `LinkedOr{${chosen.toString()}}`,
  };
}

// The database's spans, by the stable conventions. pg is loaded by ESM imports long before
// this runs, out of reach of the require hook instrumentations install, so its classes (one
// copy per process, the CommonJS cache shared with ESM) are patched here directly.
function instrumentPg(provider: NodeTracerProvider): PgInstrumentation {
  const pg = new PgInstrumentation({ enabled: false, requireParentSpan: true });
  pg.setTracerProvider(provider);
  const require = createRequire(import.meta.url);
  const modules: Record<string, unknown> = {
    pg: require('pg'),
    'pg-pool': createRequire(require.resolve('pg'))('pg-pool'),
  };
  for (const definition of pg.getModuleDefinitions()) {
    const loaded = modules[definition.name];
    if (loaded) definition.patch?.(loaded);
  }
  return pg;
}

/** How long a stopping process waits for its last spans to be sent. */
const LAST_FLUSH_MS = 1500;

let running: { readonly export: TraceExport; users: number } | undefined;

/**
 * Starts the SDK: a batching exporter, the sampler asked for, W3C trace context, the
 * AsyncLocalStorage context every span's parent is found in, pg's spans. Once per process: a
 * second call (two API servers in one test) shares the first exporter, shut down with the last.
 */
export function startTraceExport(options: TraceExportOptions): TraceExport {
  if (running) {
    running.users += 1;
    return running.export;
  }
  const exporter: SpanExporter =
    options.to === 'console'
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter({ url: options.to.url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    sampler: samplerOf(options.sampler, options.ratio),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  instrumentPg(provider);
  turnTracingOn(options.idKey);
  const started: TraceExport = {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      if (!running || (running.users -= 1) > 0) return;
      running = undefined;
      turnTracingOff();
      // The last spans get a short bound: a collector that does not answer never holds the exit.
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise((bound) => setTimeout(bound, LAST_FLUSH_MS).unref()),
      ]);
      // The globals go with it: a later start in this process registers its own.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  running = { export: started, users: 1 };
  return started;
}

/** Sends every span ended so far, if an exporter runs (tests read the receiver after it). */
export async function flushTraces(): Promise<void> {
  await running?.export.flush();
}
