import { errors, type JWTVerifyGetKey } from 'jose';
import { guardedJwksFetch } from '#outbound/jwks-fetch.js';
import type { GuardedFetcher } from '#outbound/guarded-fetcher.js';
import type { PublicKeys } from '#verifier/issuer-keys.js';
import { publicKeysOf, remotePublicKeys } from '#verifier/remote-keys.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';

/** How long fetched keys are used when the issuer's answer names no `max-age`. */
const FRESH_SECONDS = 10 * 60;
/** An unknown `kid` fetches again at most this often per URL (a rotation, not a flood). */
const REFETCH_MS = 30_000;

/** The keys a trusted issuer's assertions are verified with. */
export interface IssuerKeys {
  /** Its keys: inline, or fetched from its jwks_uri and held a while. */
  keysOf(
    issuer: TrustedIssuerState,
    options?: { readonly refresh?: boolean },
  ): Promise<JWTVerifyGetKey>;
}

/** Inline keys as read from one definition: made again only when the issuer's definition is. */
interface Inline {
  readonly source: object;
  readonly keys: PublicKeys;
}

/**
 * Keys by issuer: a jwks_uri fetched through the SSRF guard and held per `max-age`, refetched early
 * only for an unknown kid (at most every {@link REFETCH_MS}); bounded caches. A failed refresh
 * rejects with why.
 */
export function createIssuerKeys(options: {
  readonly fetcher: GuardedFetcher;
  readonly timeoutMs: number;
  readonly maxEntries: number;
  readonly now: () => number;
}): IssuerKeys {
  // Why each URL's last fetch failed: the kit's keys swallow it, the refusal names it.
  const failures = new BoundedCache<string, Error>(options.maxEntries);
  // The space whose issuer made the URL's keys holder pays for its fetches.
  const fetchFor = (spaceId: string) => {
    const guarded = guardedJwksFetch(options.fetcher, spaceId);
    return (async (url: string, init?: RequestInit) => {
      try {
        const answer = await guarded(url, init);
        failures.delete(url);
        return answer;
      } catch (error) {
        failures.set(url, error as Error);
        throw error;
      }
    }) as typeof fetch;
  };
  const remote = new BoundedCache<string, PublicKeys>(options.maxEntries);
  const inline = new BoundedCache<string, Inline>(options.maxEntries);
  const held = (issuer: TrustedIssuerState): PublicKeys => {
    const { jwks, jwks_uri: url } = issuer.definition;
    if (jwks) {
      const known = inline.get(issuer.issuerId);
      if (known?.source === jwks) return known.keys;
      const keys = publicKeysOf(jwks);
      inline.set(issuer.issuerId, { source: jwks, keys });
      return keys;
    }
    const keys =
      remote.get(url!) ??
      remotePublicKeys(url!, fetchFor(issuer.spaceId), options.now, {
        refetchAfterMs: REFETCH_MS,
        defaultMaxAgeSeconds: FRESH_SECONDS,
        timeoutMs: options.timeoutMs,
      });
    remote.set(url!, keys);
    return keys;
  };
  return {
    async keysOf(issuer, { refresh = false } = {}) {
      const keys = held(issuer);
      if (refresh) await keys.refreshSoon();
      const failure = refresh ? failures.get(issuer.definition.jwks_uri ?? '') : undefined;
      if (failure !== undefined) throw new Error(failure.message, { cause: failure });
      return ({ kid }) => {
        const key = keys.publicKey(kid ?? '');
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      };
    },
  };
}
