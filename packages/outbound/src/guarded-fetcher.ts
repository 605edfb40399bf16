import {
  abortedBy,
  FetchBusyError,
  guardedGetJson,
  type GuardedAnswer,
  type GuardedGetOptions,
} from './guarded-get.js';
import type { TargetRules } from './target-rules.js';

export { FetchBusyError };

/** Options of {@link createGuardedFetcher}: one per process, every outbound GET through it. */
export interface GuardedFetcherOptions {
  readonly rules: TargetRules;
  /** Each fetch's wall-clock deadline, headers and body. */
  readonly timeoutMs: number;
  /** Fetches in flight in the process at most; one more is refused at once (`busy`). */
  readonly maxInFlight: number;
  /** Fetches in flight for one scope (a space) at most. */
  readonly maxInFlightPerScope: number;
  /** Lookups pending in the process at most (guarded-lookup.ts); default 2, below libuv's 4. */
  readonly maxPendingLookups?: number;
  readonly resolve?: GuardedGetOptions['resolve'];
}

/** Whether `error`, or one it wraps as its `cause`, is a {@link FetchBusyError}. */
export const fetchBusy = (error: unknown): boolean =>
  error instanceof FetchBusyError || (error instanceof Error && fetchBusy(error.cause));

/** What one GET asks. */
export interface FetchAsk {
  readonly maxBytes: number;
  /** Whose fetch it is (a space id): its share of the bound. */
  readonly scope: string;
  /** The caller's: once aborted it stops waiting; the fetch ends when no caller waits. */
  readonly signal?: AbortSignal;
}

/** The process's outbound GETs. */
export interface GuardedFetcher {
  getJson(url: string, ask: FetchAsk): Promise<GuardedAnswer>;
  /** Fetches in flight now (for a test, for /metrics). */
  inFlight(): number;
}

interface Shared {
  readonly answer: Promise<GuardedAnswer>;
  readonly controller: AbortController;
  waiting: number;
}

/**
 * Guarded GETs ({@link guardedGetJson}) with an end and a bound: one fetch per URL in flight
 * (callers of a URL being fetched wait for that fetch, not a new connection), at most
 * `maxInFlight` in the process and `maxInFlightPerScope` per space, refused at once past either
 * rather than queued, so a slow peer costs its space its share and no more. A caller whose signal
 * aborts stops waiting; the fetch is aborted once no caller waits for it.
 */
export function createGuardedFetcher(options: GuardedFetcherOptions): GuardedFetcher {
  const shared = new Map<string, Shared>();
  const perScope = new Map<string, number>();
  const start = (key: string, url: string, ask: FetchAsk): Shared => {
    const scoped = perScope.get(ask.scope) ?? 0;
    if (shared.size >= options.maxInFlight || scoped >= options.maxInFlightPerScope) {
      throw new FetchBusyError('busy: too many fetches in flight, retry shortly');
    }
    perScope.set(ask.scope, scoped + 1);
    const controller = new AbortController();
    const answer = guardedGetJson(url, {
      rules: options.rules,
      timeoutMs: options.timeoutMs,
      maxBytes: ask.maxBytes,
      signal: controller.signal,
      resolve: options.resolve,
      maxPendingLookups: options.maxPendingLookups,
    }).finally(() => {
      if (shared.get(key) === entry) shared.delete(key);
      const left = (perScope.get(ask.scope) ?? 1) - 1;
      if (left > 0) perScope.set(ask.scope, left);
      else perScope.delete(ask.scope);
    });
    const entry = { answer, controller, waiting: 0 };
    shared.set(key, entry);
    return entry;
  };
  return {
    getJson(url, ask) {
      const key = `${ask.maxBytes} ${url}`;
      if (ask.signal?.aborted) return Promise.reject(abortedBy(ask.signal));
      let entry: Shared;
      try {
        entry = shared.get(key) ?? start(key, url, ask);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      entry.waiting += 1;
      return new Promise<GuardedAnswer>((resolve, reject) => {
        const onAbort = () => {
          reject(abortedBy(ask.signal));
          if (--entry.waiting > 0) return;
          // Unjoinable at once: a caller asking before it settles must not inherit this abort.
          if (shared.get(key) === entry) shared.delete(key);
          entry.controller.abort();
        };
        ask.signal?.addEventListener('abort', onAbort, { once: true });
        entry.answer
          .finally(() => ask.signal?.removeEventListener('abort', onAbort))
          .then(resolve, reject);
      });
    },
    inFlight: () => shared.size,
  };
}
