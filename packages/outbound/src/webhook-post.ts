import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalRefusal, type Resolver } from './guarded-lookup.js';
import type { TargetRules } from './target-rules.js';
import { connectFailure, DeliveryError, TargetRefusedError } from './transport.js';

/** How much of a receiver's answer is read: it is only drained, never used. */
export const ANSWER_BYTES_READ = 64 * 1024;

/** Options of {@link webhookPoster}. */
export interface WebhookPostOptions {
  readonly url: string;
  /** This deployment's sink target rules, applied again at each connection. */
  readonly rules: TargetRules;
  /** Each POST's bound: connect, send, and the answer's status and (bounded) body. */
  readonly timeoutMs: number;
  /** Defaults to `dns.lookup` (a test injects a name that rebinds). */
  readonly resolve?: Resolver;
}

/** One sink's POSTs over one keep-alive agent. */
export interface WebhookPoster {
  /** Resolves with the answer's status; throws a DeliveryError when no answer came. */
  post(headers: Record<string, string>, body: string): Promise<number>;
  close(): void;
}

/**
 * POSTs to one webhook URL with node:http(s) rather than `fetch`: `fetch` resolves the host
 * itself, so a name checked when the sink was made could connect anywhere later (DNS rebinding);
 * here every new connection goes through the guarded lookup. A redirect is never followed (a
 * 3xx is only a status), and at most {@link ANSWER_BYTES_READ} of the answer is read: a larger or
 * slower one drops the connection instead of returning it to the pool.
 */
export function webhookPoster(options: WebhookPostOptions): WebhookPoster {
  const url = new URL(options.url);
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const guard = {
    host,
    port: Number(url.port || (secure ? 443 : 80)),
    plaintext: !secure,
    rules: options.rules,
    resolve: options.resolve,
  };
  const lookup = guardedLookup(guard);
  // Idle sockets close before a receiver's usual 5 s keep-alive would close them under a request.
  const agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, timeout: 4000 });

  const unreachable = (reason: unknown) =>
    new DeliveryError(
      connectFailure(reason),
      `webhook unreachable: ${reason instanceof Error ? reason.message : String(reason)}`,
      { cause: reason },
    );

  const post = (headers: Record<string, string>, body: string) =>
    new Promise<number>((resolve, reject) => {
      const literal = literalRefusal(guard);
      if (literal) return reject(unreachable(new TargetRefusedError(literal)));
      const request = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: host,
        port: guard.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent,
        lookup,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      let status: number | undefined;
      const settle = () => {
        clearTimeout(timer);
        if (status === undefined) return;
        resolve(status);
      };
      const timer = setTimeout(() => {
        // With the status known, only the drain was slow: the answer stands, the socket goes.
        if (status !== undefined) {
          request.destroy();
          return settle();
        }
        request.destroy(new DeliveryError('timeout', `no answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      request.on('error', (error) => {
        clearTimeout(timer);
        if (status !== undefined) return settle();
        reject(unreachable(error));
      });
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES_READ) {
            request.destroy();
            settle();
          }
        });
        response.on('end', settle);
        response.on('close', settle);
        response.on('error', settle);
      });
      request.end(body);
    });

  return { post, close: () => agent.destroy() };
}
