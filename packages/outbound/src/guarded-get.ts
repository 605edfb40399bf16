import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalRefusal, LookupBusyError, type Resolver } from './guarded-lookup.js';
import type { TargetRules } from './target-rules.js';
import { TargetRefusedError } from './transport.js';

/** A JSON document read, with the lifetime its answer gave (`Cache-Control`, when it gave one). */
export interface GuardedAnswer {
  readonly body: unknown;
  readonly cacheControl: string | undefined;
}

/**
 * A failed fetch, its message a class a tenant may be shown (`timed out`, `connection refused`,
 * `TLS failed`, `too large`, `not JSON`, `answered 404`, `refused: <target rule>`, …): never a raw
 * socket error, which would quote the peer or the network. The detail is its `cause`.
 */
export class FetchFailedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FetchFailedError';
  }
}

/** Refused for the process's bounds, not for anything the peer or the asker did. */
export class FetchBusyError extends FetchFailedError {}

/** The class of an error met before a whole answer (a socket's, a lookup's, ours). */
function fetchFailure(error: unknown): FetchFailedError {
  if (error instanceof FetchFailedError) return error;
  if (error instanceof LookupBusyError) return new FetchBusyError(error.message);
  if (error instanceof TargetRefusedError) return new FetchFailedError(`refused: ${error.message}`);
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  const failure =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'name did not resolve'
        : /CERT|TLS|SSL|UNABLE_TO|SELF_SIGNED|ALTNAME/.test(code) || /TLS|SSL/.test(String(error))
          ? 'TLS failed'
          : 'connection failed';
  return new FetchFailedError(failure, { cause: error });
}

/** Why a caller's signal ended its fetch: its own deadline (`AbortSignal.timeout`) or not. */
export const abortedBy = (signal: AbortSignal | undefined) =>
  new FetchFailedError(
    (signal?.reason as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'aborted',
  );

/** Options of {@link guardedGetJson}. */
export interface GuardedGetOptions {
  readonly rules: TargetRules;
  /** Wall clock over the whole fetch: connect, headers and body; past it the socket is destroyed. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** The caller's: once aborted, the socket is destroyed and the fetch rejects `aborted`. */
  readonly signal?: AbortSignal;
  /** Of the guarded lookup (guarded-lookup.ts). */
  readonly resolve?: Resolver;
  readonly maxPendingLookups?: number;
}

/**
 * GETs a JSON document under the outbound target rules (target-rules.ts): node:http(s) with the
 * guarded lookup rather than `fetch`, so a name that resolves elsewhere later (DNS rebinding) is
 * judged at each connection; no redirect followed, no connection kept, at most `maxBytes` read,
 * and `timeoutMs` of wall clock for the whole (a peer answering a byte at a time is cut off, not
 * kept until its byte cap). Rejects with a {@link FetchFailedError}.
 */
export function guardedGetJson(url: string, options: GuardedGetOptions): Promise<GuardedAnswer> {
  if (!URL.canParse(url)) return Promise.reject(new FetchFailedError('not a URL'));
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const guard = {
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || (secure ? 443 : 80)),
    plaintext: !secure,
    rules: options.rules,
    resolve: options.resolve,
    maxPendingLookups: options.maxPendingLookups,
  };
  return new Promise((resolve, reject) => {
    const literal = literalRefusal(guard);
    if (literal) return reject(fetchFailure(new TargetRefusedError(literal)));
    if (options.signal?.aborted) return reject(abortedBy(options.signal));
    const request = (secure ? https : http).get({
      protocol: target.protocol,
      hostname: guard.host,
      port: guard.port,
      path: `${target.pathname}${target.search}`,
      lookup: guardedLookup(guard),
      // One connection per fetch, closed after it: none left pooled for the next to inherit.
      headers: { accept: 'application/json', connection: 'close' },
    });
    let settled = false;
    const settle = (error: Error | undefined, answer?: GuardedAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever ended it, the socket goes with it: nothing is left reading after the answer.
      if (error) request.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => settle(new FetchFailedError('timed out')), options.timeoutMs);
    const onAbort = () => settle(abortedBy(options.signal));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => settle(fetchFailure(error)));
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        return settle(new FetchFailedError(`answered ${response.statusCode ?? 0}`));
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read <= options.maxBytes) chunks.push(chunk);
        else settle(new FetchFailedError('too large'));
      });
      response.on('end', () => {
        try {
          const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          settle(undefined, { body, cacheControl: response.headers['cache-control'] });
        } catch {
          settle(new FetchFailedError('not JSON'));
        }
      });
      response.on('error', (error) => settle(fetchFailure(error)));
    });
  });
}
