import { createPublicKey, type KeyObject } from 'node:crypto';
import type { PublicKeys } from './issuer-keys.js';

/** How long a JWKS is held when its answer names no `max-age` (the service sends 300). */
const DEFAULT_MAX_AGE_SECONDS = 300;
/** How long the held keys go on serving when a refetch fails, before the next try. */
const RETRY_AFTER_FAILURE_MS = 30_000;

/** What a holder of another issuer's keys may tune (the service's trusted issuers do). */
export interface RemoteKeysOptions {
  /** A kid not held fetches again at most this often (default 1 s). */
  readonly refetchAfterMs?: number;
  /** How long a JWKS is held when its answer names no `max-age` (default 300 s). */
  readonly defaultMaxAgeSeconds?: number;
  /** Each fetch's bound, headers and body, passed to `doFetch` as its signal (default 5 s). */
  readonly timeoutMs?: number;
}

/**
 * The issuer's signing keys from its JWKS endpoint, as Node key objects: fetched on first use,
 * again when a token names a kid not held (a rotation), at most once a second, and again once the
 * held set is older than the answer's `Cache-Control: max-age` (issue 51: a key the issuer
 * retired, as compromised, is no longer trusted once the cache lifetime it gave has passed). A
 * failed refetch keeps the held keys serving for 30 s more, then tries again. `doFetch` is the
 * transport: `fetch`, or one that guards where it may connect (the service's SSRF-guarded one).
 */
export function remotePublicKeys(
  jwksUrl: string,
  doFetch: typeof fetch,
  now: () => number = Date.now,
  options: RemoteKeysOptions = {},
): PublicKeys {
  const {
    refetchAfterMs = 1000,
    defaultMaxAgeSeconds = DEFAULT_MAX_AGE_SECONDS,
    timeoutMs = 5000,
  } = options;
  let keys = new Map<string, KeyObject>();
  let lastFetch = 0;
  let staleAt = 0;
  let pending: Promise<void> | undefined;
  const load = async () => {
    lastFetch = now();
    let fresh: Map<string, KeyObject> | undefined;
    let response: Response | undefined;
    try {
      // One signal over the whole: `fetch` aborts the body's read with it, not only the headers'.
      response = await doFetch(jwksUrl, { signal: AbortSignal.timeout(timeoutMs) });
      if (response.status === 200) fresh = keysOf(await response.json());
    } finally {
      if (fresh) {
        keys = fresh;
        staleAt =
          lastFetch +
          Math.max(1, maxAgeSeconds(response!.headers.get('cache-control'), defaultMaxAgeSeconds)) *
            1000;
      } else {
        staleAt = lastFetch + RETRY_AFTER_FAILURE_MS;
      }
    }
  };
  return {
    // Past its lifetime the held set names no key: the caller refetches (refreshSoon) and asks again.
    publicKey: (kid) => (now() < staleAt ? keys.get(kid) : undefined),
    refreshSoon() {
      if (now() - lastFetch < refetchAfterMs && now() < staleAt)
        return pending ?? Promise.resolve();
      pending ??= load()
        .catch(() => undefined)
        .finally(() => (pending = undefined));
      return pending;
    },
  };
}

/**
 * A JWKS document given inline (not fetched) as keys: held as given, never stale. A key without a
 * kid answers a token that names none (`''`), as a JWKS of one unnamed key is meant to.
 */
export function publicKeysOf(document: unknown): PublicKeys {
  const keys = keysOf(document, true);
  return { publicKey: (kid) => keys.get(kid), refreshSoon: () => Promise.resolve() };
}

/** The usable keys of a JWKS document, by kid (`unnamed`: the first kid-less one under `''`). */
function keysOf(document: unknown, unnamed = false): Map<string, KeyObject> {
  const published = (document as { keys?: unknown } | null)?.keys;
  const keys = new Map<string, KeyObject>();
  for (const jwk of Array.isArray(published) ? (published as { kid?: unknown }[]) : []) {
    const kid = typeof jwk?.kid === 'string' ? jwk.kid : unnamed && !keys.has('') ? '' : undefined;
    if (kid === undefined) continue;
    try {
      keys.set(kid, createPublicKey({ key: jwk as never, format: 'jwk' }));
    } catch {
      // a key we cannot use is no key of ours
    }
  }
  return keys;
}

/** `max-age` of a Cache-Control header, in seconds; the default when there is none. */
function maxAgeSeconds(header: string | null, fallback: number): number {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(header ?? '');
  return match ? Number(match[1]) : fallback;
}
