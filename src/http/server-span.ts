import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  propagation,
  trace,
  type Attributes,
  type Link,
  type Span,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { Middleware } from 'koa';
import { addressBytes, cidrContains, parseCidr } from '#outbound/ip-address.js';
import type { RequestState } from './state.js';

// What a grant type or an error code may look like before it is written into a span: the
// names RFC 6749 and its extensions use, never a caller's free text.
const CODE = /^[A-Za-z0-9_:.-]{1,80}$/;
const code = (value: unknown) =>
  typeof value === 'string' && CODE.test(value) ? value : undefined;

/** Whether a caller's address is one whose trace context is continued. */
export function traceSourceRule(sources: readonly string[] = []): (address?: string) => boolean {
  const blocks = sources.flatMap((source) => parseCidr(source) ?? []);
  if (blocks.length === 0) return () => false;
  return (address) => {
    const bytes = address ? addressBytes(address) : undefined;
    return bytes !== undefined && blocks.some((block) => cidrContains(block, bytes));
  };
}

/**
 * One server span per request (the stable HTTP conventions; `http.route` from @koa/router's
 * matched layer), the parent of every span the request makes. A caller's `traceparent` is
 * continued only when the connection comes from a trusted source (OTEL_TRUSTED_TRACE_SOURCES);
 * from anyone else it is kept as a link on a trace of our own, so an outsider can neither
 * attach our spans to its trace nor force them sampled. Installed only with tracing on.
 */
export function serverSpans(trusted: (address?: string) => boolean): Middleware<RequestState> {
  const tracer = trace.getTracer('token-authority');
  return async (ctx, next) => {
    const incoming = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const sent = trace.getSpanContext(incoming);
    const continued = sent !== undefined && trusted(ctx.req.socket.remoteAddress);
    // Its sampled flag dropped: the sampler keeps a span linking a sampled trace (trace-export.ts).
    const link = sent && { ...sent, traceFlags: TraceFlags.NONE };
    const links: Link[] =
      link && !continued ? [{ context: link, attributes: { 'link.reason': 'untrusted' } }] : [];
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: ctx.method,
      [ATTR_URL_PATH]: ctx.path,
      [ATTR_URL_SCHEME]: ctx.protocol,
      [ATTR_NETWORK_PROTOCOL_VERSION]: ctx.req.httpVersion,
    };
    const parent = continued ? incoming : ROOT_CONTEXT;
    const span = tracer.startSpan(ctx.method, { kind: SpanKind.SERVER, attributes, links }, parent);
    try {
      // An unsampled request runs outside any span: nothing below it makes one (the helpers of
      // observability/tracing.ts and pg's instrumentation need a parent), nor records its ids.
      await (span.isRecording() ? context.with(trace.setSpan(parent, span), next) : next());
    } finally {
      if (span.isRecording()) describe(ctx, span);
      span.end();
    }
  };
}

// What a sampled request's span says once it was answered (an unsampled one's says nothing).
function describe(ctx: Parameters<Middleware<RequestState>>[0], span: Span): void {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof route === 'string') {
    span.setAttribute(ATTR_HTTP_ROUTE, route);
    span.updateName(`${ctx.method} ${route}`);
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
  // Set after the forwarded-address middleware has judged X-Forwarded-For.
  span.setAttribute(ATTR_CLIENT_ADDRESS, ctx.ip);
  const grantType = code((ctx.request as { body?: { grant_type?: unknown } }).body?.grant_type);
  if (grantType) span.setAttribute('oauth.grant_type', grantType);
  if (ctx.state.clientId) span.setAttribute('oauth.client_id', ctx.state.clientId);
  if (ctx.state.spaceId) span.setAttribute('tenant.space_id', ctx.state.spaceId);
  if (ctx.status >= 400) {
    const body = ctx.body as { error?: unknown; code?: unknown } | null | undefined;
    const refusal = code(body?.error) ?? code(body?.code);
    if (refusal) span.setAttribute('oauth.error', refusal);
  }
  if (ctx.status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(ctx.status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}
