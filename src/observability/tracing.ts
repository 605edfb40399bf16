import { createHmac, createHash } from 'node:crypto';
import {
  SpanStatusCode,
  isSpanContextValid,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import type { EventTrace } from '#event-log/event-traces.js';

export type { Attributes };

// Off (the default), every helper here just calls its work: the issuance path pays nothing.
let tracing = false;
// Keyed, so a hashed id cannot be reversed by hashing every likely id; replicas agree on it.
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
 * the log. An unsampled request records nothing: its trace reaches no backend, so the requests a
 * sampler drops cost no second row.
 */
export function currentTrace(): EventTrace | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { traceId: ids.traceId, spanId: ids.spanId } : undefined;
}

/** Marks `span` failed: by the refusal's code, never its message (which may quote input). */
export function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  span.setAttribute('error.type', typeof code === 'string' ? code : 'internal');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** `work` in an active span, ended when it returns or, for a promise, when that settles. */
function spanned<T>(name: string, attributes: Attributes, work: (span: Span) => T): T {
  return tracer().startActiveSpan(name, { attributes }, (span) => {
    const fail = (error: unknown): never => {
      failed(span, error);
      span.end();
      throw error;
    };
    let result: T;
    try {
      result = work(span);
    } catch (error) {
      return fail(error);
    }
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then((value: unknown) => (span.end(), value), fail) as T;
  });
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
  return recording() ? spanned(name, attributes, async (span) => work(span)) : work(undefined);
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
  return spanned('decide', attributes(), (span) => {
    const made = decide();
    if (!made.ok && made.refusal) span.setAttribute('oauth.error', made.refusal);
    return made;
  });
}
