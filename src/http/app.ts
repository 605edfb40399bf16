import Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { RequestObserver } from '../observability/request-observer.js';
import { forwardedFor, type ForwardedFor } from './forwarded.js';
import { requestContext } from './request-context.js';
import { serverSpans } from './server-span.js';
import type { RequestState } from './state.js';

/** What the HTTP edge is built from. Routes are assembled by the caller (src/cli/api-server.ts). */
export interface AppOptions {
  readonly logger: Logger;
  readonly routers: readonly Router<RequestState>[];
  /** Proxies in front of us whose X-Forwarded-For entries are believed (0: the socket's address). */
  readonly trustedProxyHops: number;
  /** Which forwarded addresses are believed (forwarded.ts); one per process, shared with /healthz. */
  readonly forwarded?: ForwardedFor;
  readonly observe?: RequestObserver;
  /** Longest a request may take before it gets 503 (REQUEST_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /**
   * With tracing on: whose `traceparent` is continued (the connection's address). Absent, no
   * server span is made and the request path is what it was before traces.
   */
  readonly traces?: { readonly trusted: (address?: string) => boolean };
}

/** The Koa application: request context and error handling around every router. */
export function createApp(options: AppOptions): Koa<RequestState> {
  // With N trusted hops the client is the address the outermost of them saw: the N-th entry of
  // X-Forwarded-For from the right. Entries further left are whatever the client claimed.
  const app = new Koa<RequestState>({
    proxy: options.trustedProxyHops > 0,
    maxIpsCount: options.trustedProxyHops,
  });
  app.silent = true; // errors are logged once, by requestContext
  // Outermost, so the span holds the whole request, errors written included.
  if (options.traces) app.use(serverSpans(options.traces.trusted));
  app.use(requestContext(options.logger, options.observe, options.deadlineMs));
  app.use((options.forwarded ?? forwardedFor(options.trustedProxyHops, options.logger)).middleware);
  for (const router of options.routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
