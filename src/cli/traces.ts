import { createHmac } from 'node:crypto';
import type { Config } from '../config/config.js';
import { loadSecretHashKey } from '../crypto/key-files.js';
import { traceSourceRule } from '../http/server-span.js';
import type { TraceExport } from '../observability/trace-export.js';
import type { LinkedSpans } from '#event-log/event-traces.js';

/** Where spans go by the OTEL_* settings, or undefined: tracing off. */
export function traceDestination(config: Config): { url: string } | 'console' | undefined {
  if (config.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (config.OTEL_TRACES_EXPORTER === 'console') return 'console';
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return { url: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT };
  }
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? { url: `${base.replace(/\/+$/, '')}/v1/traces` } : undefined;
}

/**
 * An API process's traces, when the settings ask for them: what its app continues, and the
 * exporter to shut down last. Off, the SDK is never loaded and no middleware is added.
 */
export async function startApiTraces(config: Config): Promise<{
  readonly app?: { readonly trusted: (address?: string) => boolean };
  readonly export?: TraceExport;
}> {
  if (!traceDestination(config)) return {};
  // Customer ids are hashed under a key derived from the one every replica shares: the hashes
  // agree across replicas and say nothing outside the deployment.
  const secret = await loadSecretHashKey(config.SECRET_HASH_KEY, config.DATA_DIR);
  const idKey = createHmac('sha256', secret).update('token-authority trace ids').digest();
  const started = await startExport(config, idKey);
  return started
    ? { app: { trusted: traceSourceRule(config.OTEL_TRUSTED_TRACE_SOURCES) }, export: started }
    : {};
}

/**
 * The projector's and the deliverer's traces, from the same settings: its exporter, and each
 * batch or delivery a span linked to the requests whose events it handled. Off, nothing loaded.
 */
export async function startWorkerTraces(
  config: Config,
  kind: 'internal' | 'client',
): Promise<{ readonly export?: TraceExport; readonly spans?: LinkedSpans }> {
  // No id key: their spans name no customer (and the deliverer has no secret to derive one).
  const started = await startExport(config);
  if (!started) return {};
  const [{ linkedSpans }, { SpanKind }] = await Promise.all([
    import('../observability/linked-spans.js'),
    import('@opentelemetry/api'),
  ]);
  return {
    export: started,
    spans: linkedSpans(kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL),
  };
}

async function startExport(config: Config, idKey?: Buffer): Promise<TraceExport | undefined> {
  const to = traceDestination(config);
  if (!to) return undefined;
  const { startTraceExport } = await import('../observability/trace-export.js');
  return startTraceExport({
    to,
    serviceName: config.OTEL_SERVICE_NAME,
    sampler: config.OTEL_TRACES_SAMPLER,
    ratio: config.OTEL_TRACES_SAMPLER_ARG,
    ...(idKey ? { idKey } : {}),
  });
}
