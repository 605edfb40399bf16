import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { TrustedIssuerState } from '../domain/trusted-issuer/decide.js';
import { findTrustedIssuer } from './trusted-issuers.js';

/** The live issuer of an `iss` in a space, read through a short cache. */
export interface TrustedIssuerLookup {
  find(spaceId: string, iss: string): Promise<TrustedIssuerState | undefined>;
  /** Drops a space's entries: this process sees its admins' change at once. */
  forget(spaceId: string): void;
}

/** The trusted issuers by (space, iss), found or not, held `ttlMs`, at most `maxEntries`. */
export function createTrustedIssuerLookup(
  db: Kysely<Database>,
  options: { readonly ttlMs: number; readonly maxEntries: number; readonly now: () => number },
): TrustedIssuerLookup {
  const cache = new Map<string, { readonly state?: TrustedIssuerState; readonly until: number }>();
  const keyOf = (spaceId: string, iss: string) => JSON.stringify([spaceId, iss]);
  return {
    async find(spaceId, iss) {
      if (options.ttlMs <= 0) return findTrustedIssuer(db, spaceId, iss);
      const key = keyOf(spaceId, iss);
      const hit = cache.get(key);
      if (hit && hit.until > options.now()) return hit.state;
      const state = await findTrustedIssuer(db, spaceId, iss);
      cache.delete(key);
      if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(key, { ...(state ? { state } : {}), until: options.now() + options.ttlMs });
      return state;
    },
    forget(spaceId) {
      const prefix = JSON.stringify([spaceId]).slice(0, -1);
      for (const key of cache.keys()) if (key.startsWith(`${prefix},`)) cache.delete(key);
    },
  };
}
