import { isIP } from 'node:net';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from './state.js';

/** The client address the edge believes, and what it noticed about how requests reach it. */
export interface ForwardedFor {
  readonly middleware: Middleware<RequestState>;
  /** Deployment warnings for /healthz (empty while nothing is wrong). */
  warnings(): readonly string[];
}

/**
 * Which address a request comes from. With TRUSTED_PROXY_HOPS=N, Koa takes the N-th entry of
 * X-Forwarded-For from the right; an entry that is not an IP address is never used (whatever text
 * a client wrote there would end up in events and lockout keys): the socket's address is, instead.
 * With 0 hops, a request that carries X-Forwarded-For means a proxy we do not trust is in front,
 * so every caller shares its address for limits and lockouts: said once in the log and in /healthz.
 */
export function forwardedFor(trustedProxyHops: number, logger: Logger): ForwardedFor {
  let untrustedProxySeen = false;
  return {
    middleware: async (ctx, next) => {
      if (trustedProxyHops > 0) {
        if (isIP(ctx.ip) === 0) ctx.request.ip = ctx.socket.remoteAddress ?? '';
      } else if (!untrustedProxySeen && ctx.get('x-forwarded-for')) {
        untrustedProxySeen = true;
        logger.warn(
          'requests carry X-Forwarded-For but TRUSTED_PROXY_HOPS=0: every caller behind that proxy shares its address for rate limits and lockouts; set TRUSTED_PROXY_HOPS to the number of proxies in front',
        );
      }
      await next();
    },
    warnings: () =>
      untrustedProxySeen
        ? [
            'requests carry X-Forwarded-For but TRUSTED_PROXY_HOPS=0: callers share the proxy address for limits and lockouts',
          ]
        : [],
  };
}
