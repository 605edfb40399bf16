import { SpanKind, trace, type Link } from '@opentelemetry/api';
import type { EventTrace, LinkedSpans } from '#event-log/event-traces.js';
import { failed } from './tracing.js';

/** The most links a span keeps (the SDK's default limit): a batch links its first traces. */
const MAX_LINKS = 128;

/**
 * Background work as spans of their own traces, linked to the traces of the events they
 * handled (OpenTelemetry's batch pattern: a projector batch or a delivery serves many requests,
 * so it is no request's child). The span is made once the work is done, from its start to its
 * end, and only when it handled something: a projector polling an idle log sends nothing.
 */
export function linkedSpans(kind: SpanKind = SpanKind.INTERNAL): LinkedSpans {
  const tracer = trace.getTracer('token-authority');
  return async (name, work, after) => {
    const startTime = Date.now();
    let result;
    try {
      result = await work();
    } catch (error) {
      const span = tracer.startSpan(name, { kind, root: true, startTime });
      failed(span, error);
      span.end();
      throw error;
    }
    const endTime = Date.now();
    // The work is done (a batch committed): failing to read what it handled only loses its span.
    const handled = await after(result).catch(() => undefined);
    if (handled) {
      const links = linksTo(handled.links);
      const attributes = { ...handled.attributes, 'link.count': links.length };
      tracer.startSpan(name, { kind, root: true, startTime, attributes, links }).end(endTime);
    }
    return result;
  };
}

function linksTo(traces: readonly EventTrace[]): Link[] {
  const seen = new Set<string>();
  const links: Link[] = [];
  for (const each of traces) {
    if (seen.has(each.spanId)) continue;
    seen.add(each.spanId);
    links.push({ context: { traceId: each.traceId, spanId: each.spanId, traceFlags: 1 } });
    if (links.length === MAX_LINKS) break;
  }
  return links;
}
