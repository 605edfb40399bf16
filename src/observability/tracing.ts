import { createHmac, createHash } from 'node:crypto';
import {
  SpanStatusCode,
  isSpanContextValid,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import type { EventTrace } from '#event-log/event-traces.js';

/**
 * Whether spans are made at all. Off (the default), every helper here calls its work directly:
 * no span, no context switch, nothing allocated beyond the call, so the issuance path costs what
 * it did before traces existed. Turned on once, by the exporter's start (trace-export.ts).
 */
let tracing = false;
// Customer ids enter a span only hashed; with the deployment's key, so a hash cannot be
// reversed by hashing every likely id, and replicas sharing the key agree on it.
let idKey: Buffer | undefined;

/** Whether this process makes spans (an exporter was started). */
export function tracingOn(): boolean {
  return tracing;
}

/** Called by the exporter's start alone; `key` hashes customer ids (see {@link hashedId}). */
export function turnTracingOn(key?: Buffer): void {
  tracing = true;
  idKey = key;
}

/** Back to no spans (the exporter shut down). */
export function turnTracingOff(): void {
  tracing = false;
  idKey = undefined;
}

/**
 * An id as a span may carry it: HMAC-SHA-256 under the deployment's key (SHA-256 without one),
 * hex, the first 16 bytes: enough to follow one customer's requests, nothing to read an id from.
 */
export function hashedId(id: string): string {
  const digest = idKey ? createHmac('sha256', idKey) : createHash('sha256');
  return digest.update(id, 'utf8').digest('hex').slice(0, 32);
}

const tracer = () => trace.getTracer('token-authority');

// Spans are made only under a recording parent (a sampled request's): never a root of its own.
const recording = () => tracing && trace.getActiveSpan()?.isRecording() === true;

/**
 * The sampled span running now (an append's, else its request's), as an event records it beside
 * the log. An unsampled request records nothing: its trace reaches no backend, its events are
 * joined to their every copy by their own ids, and the 99 requests in 100 a 1 % sampler drops
 * then cost no second row each.
 */
export function currentTrace(): EventTrace | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { traceId: ids.traceId, spanId: ids.spanId } : undefined;
}

// A refusal's span says which refusal by its code, never by its message (which may quote input).
function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  span.setAttribute('error.type', typeof code === 'string' ? code : 'internal');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `work` inside a span named `name` (a child of the request's), ended when it settles; with
 * tracing off, or outside a sampled request, just runs it. `attributes` must hold no secret,
 * assertion or token.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!recording()) return work(undefined);
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A decision in its own span: `attributes` are computed only in a sampled request (a hashed id
 * costs an HMAC), and a refusal is written as `oauth.error`.
 */
export function decidedInSpan<Made extends { readonly ok: boolean; readonly refusal?: string }>(
  attributes: () => Attributes,
  decide: () => Made,
): Made {
  if (!recording()) return decide();
  return inSyncSpan('decide', attributes(), (span) => {
    const made = decide();
    if (!made.ok && made.refusal) span?.setAttribute('oauth.error', made.refusal);
    return made;
  });
}

/** {@link inSpan} for synchronous work (a pure decision). */
export function inSyncSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => T,
): T {
  if (!recording()) return work(undefined);
  return tracer().startActiveSpan(name, { attributes }, (span) => {
    try {
      return work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
