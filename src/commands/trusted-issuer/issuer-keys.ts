import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import type { TargetRules } from '../../delivery/target-rules.js';
import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import { fetchJwks } from './jwks-fetch.js';

/** How long fetched keys are used before they are fetched again. */
const FRESH_MS = 10 * 60_000;
/** An unknown `kid` fetches again at most this often per URL (a rotation, not a flood). */
const REFETCH_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

interface Held {
  readonly keys: JWTVerifyGetKey;
  readonly fetchedAt: number;
}

/** The keys a trusted issuer's assertions are verified with. */
export interface IssuerKeys {
  /** Its keys: inline, or fetched from its jwks_uri and held a while. */
  keysOf(
    issuer: TrustedIssuerState,
    options?: { readonly refresh?: boolean },
  ): Promise<JWTVerifyGetKey>;
}

/**
 * Keys by issuer: inline JWKS as given; a jwks_uri fetched under the sinks' SSRF rules, held for
 * {@link FRESH_MS} in a cache of at most `maxEntries` URLs, fetched again sooner only when an
 * assertion names a key not held (at most every {@link REFETCH_MS}).
 */
export function createIssuerKeys(options: {
  readonly rules: TargetRules;
  readonly maxEntries: number;
  readonly now: () => number;
}): IssuerKeys {
  const cache = new BoundedCache<string, Held>(options.maxEntries);
  const inFlight = new Map<string, Promise<Held>>();
  const fetchInto = (url: string): Promise<Held> => {
    const pending =
      inFlight.get(url) ??
      fetchJwks(url, options.rules, FETCH_TIMEOUT_MS)
        .then((jwks) => {
          const held = { keys: createLocalJWKSet(jwks as never), fetchedAt: options.now() };
          cache.set(url, held);
          return held;
        })
        .finally(() => inFlight.delete(url));
    inFlight.set(url, pending);
    return pending;
  };
  return {
    async keysOf(issuer, { refresh = false } = {}) {
      const { jwks, jwks_uri: url } = issuer.definition;
      if (jwks) {
        // Keyed by the keys themselves: importing them is the costly part, and never goes stale.
        const key = JSON.stringify(jwks);
        const inline = cache.get(key) ?? { keys: createLocalJWKSet(jwks), fetchedAt: 0 };
        cache.set(key, inline);
        return inline.keys;
      }
      const held = cache.get(url!);
      const age = held ? options.now() - held.fetchedAt : Infinity;
      if (held && age < FRESH_MS && !(refresh && age >= REFETCH_MS)) return held.keys;
      return (await fetchInto(url!)).keys;
    },
  };
}
