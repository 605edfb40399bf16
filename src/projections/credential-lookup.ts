import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Credential } from '../domain/credential/state.js';
import { findCredential } from './credentials.js';

/** Reads credentials for validation, off the database on the hot path. */
export interface CredentialLookup {
  find(clientId: string): Promise<Credential | undefined>;
  /** Straight from the read model, for a change that must see the latest version. */
  findFresh(clientId: string): Promise<Credential | undefined>;
  /** Drops a cached entry: a change made here takes effect here at once. */
  forget(clientId: string): void;
  /** Entries held (for /metrics). */
  sizes(): { readonly known: number; readonly unknown: number };
}

/**
 * The credentials read model behind a short cache: found ones for `ttlMs` (a revocation reaches
 * every replica within it), unknown ids for `unknownTtlMs` (safe: ids are random, unknowable in
 * advance). Concurrent misses share one query; ttlMs 0 always reads.
 */
export function createCredentialLookup(
  db: Kysely<Database>,
  options: {
    readonly ttlMs: number;
    readonly unknownTtlMs?: number;
    readonly maxEntries?: number;
    readonly now?: () => number;
  },
): CredentialLookup {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const unknownTtlMs = options.unknownTtlMs ?? 0;
  const cache = new Map<string, { readonly view: Credential; readonly until: number }>();
  const unknown = new Map<string, number>();
  const loading = new Map<string, Promise<Credential | undefined>>();
  return {
    findFresh: (clientId) => findCredential(db, clientId),
    forget: (clientId) => void cache.delete(clientId),
    sizes: () => ({ known: cache.size, unknown: unknown.size }),
    async find(clientId) {
      if (options.ttlMs <= 0) return findCredential(db, clientId);
      const hit = cache.get(clientId);
      if (hit && hit.until > now()) return hit.view;
      const unknownUntil = unknown.get(clientId);
      if (unknownUntil !== undefined && unknownUntil > now()) return undefined;
      let pending = loading.get(clientId);
      if (!pending) {
        pending = findCredential(db, clientId).finally(() => loading.delete(clientId));
        loading.set(clientId, pending);
      }
      const view = await pending;
      if (view) {
        if (cache.size >= maxEntries) cache.clear();
        cache.set(clientId, { view, until: now() + options.ttlMs });
      } else {
        cache.delete(clientId);
        if (unknownTtlMs > 0) {
          if (unknown.size >= maxEntries) unknown.delete(unknown.keys().next().value!);
          unknown.set(clientId, now() + unknownTtlMs);
        }
      }
      return view;
    },
  };
}
