import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { BoundedCache } from './bounded-cache.js';
import type { KeyEncryptionKey } from './key-encryption.js';
import { loadPublishedKeys, type LoadedKey, type SigningKey } from './key-store.js';
import type { PublicKeys } from './access-tokens.js';
import type { TokenSigner } from './token-signer.js';

/** Which spaces sign with keys of their own (SPACE_SIGNING_KEYS). */
export type SpaceSigningKeys = 'on-request' | 'all';

/** One space's own key ring as this process holds it. */
export interface SpaceRing extends PublicKeys {
  /** The newest key already active; undefined when the ring has no published key. */
  current(): SigningKey | undefined;
  /** The space's JWKS document: its published keys only. */
  jwks(): { readonly keys: readonly JWK[] };
}

/**
 * The spaces' own key rings (issue 42), looked up lazily: a ring is read from the database on
 * first use and kept, at most `maxSpaces` of them, the least recently used dropped; each is read
 * again (reusing its opened keys) once older than `refreshMs`, while the held copy keeps serving.
 * Many spaces thus cost a bounded amount of memory and one query per space per `refreshMs`.
 */
export interface SpaceKeyStore {
  /**
   * Whether `spaceId` signs with its own ring: every space under `all`, else those an admin turned
   * on (a set re-read every `refreshMs`). Synchronous: issuance asks it on every token.
   */
  owns(spaceId: string): boolean;
  /**
   * Since when the space signs with its own ring (ms since the epoch: the activation of the
   * oldest key it publishes); undefined while it signs with the shared ring. A token of the shared
   * ring naming the space is trusted only from before then (issue 51). Read from the ring, so it
   * costs nothing more than the ring does.
   */
  ownedSince(spaceId: string): Promise<number | undefined>;
  /** The space's ring (read now if not held); empty when the space has no key. */
  ring(spaceId: string): Promise<SpaceRing>;
  /** Drops what is held of a space (its ring just changed here) and re-reads the enabled set. */
  forget(spaceId: string): Promise<void>;
  /** Stops the periodic re-read. */
  close(): void;
}

/** Opens the spaces' key rings; see {@link SpaceKeyStore}. */
export async function openSpaceKeyStore(
  db: Kysely<Database>,
  options: {
    readonly mode: SpaceSigningKeys;
    readonly kek: KeyEncryptionKey;
    readonly signer?: TokenSigner;
    readonly refreshMs: number;
    readonly maxSpaces: number;
    readonly now?: () => number;
  },
): Promise<SpaceKeyStore> {
  const now = options.now ?? Date.now;
  const held = new BoundedCache<string, { keys: LoadedKey[]; loadedAt: number }>(options.maxSpaces);
  const loading = new Map<string, Promise<LoadedKey[]>>();
  let enabled = new Set<string>();
  const readEnabled = async () => {
    if (options.mode === 'all') return;
    const rows = await db
      .selectFrom('signing_keys')
      .select('space_id')
      .where('space_id', 'is not', null)
      .groupBy('space_id')
      .execute();
    enabled = new Set(rows.map((row) => row.space_id!));
  };
  const owns = (spaceId: string) => options.mode === 'all' || enabled.has(spaceId);
  await readEnabled();
  const timer = setInterval(() => void readEnabled().catch(() => undefined), options.refreshMs);
  timer.unref();

  function load(spaceId: string, opened: readonly LoadedKey[]): Promise<LoadedKey[]> {
    let pending = loading.get(spaceId);
    if (!pending) {
      pending = loadPublishedKeys(db, options.kek, options.signer, spaceId, opened)
        .then((keys) => {
          held.set(spaceId, { keys, loadedAt: now() });
          return keys;
        })
        .finally(() => loading.delete(spaceId));
      loading.set(spaceId, pending);
    }
    return pending;
  }

  async function keysOf(spaceId: string): Promise<LoadedKey[]> {
    const entry = held.get(spaceId);
    if (!entry) return load(spaceId, []);
    const age = now() - entry.loadedAt;
    // Older than two refreshes (a ring no request asked for since): read again before answering,
    // so a retirement reaches every worker within 2 × refreshMs whatever the traffic (issue 51).
    if (age >= 2 * options.refreshMs) return load(spaceId, entry.keys);
    // Stale: served as held while one re-read runs.
    if (age >= options.refreshMs) void load(spaceId, entry.keys).catch(() => {});
    return entry.keys;
  }

  return {
    owns,
    async ownedSince(spaceId) {
      if (!owns(spaceId)) return undefined;
      const keys = await keysOf(spaceId);
      return keys.length > 0 ? Math.min(...keys.map((key) => key.activatesAt)) : undefined;
    },
    async ring(spaceId) {
      let keys = await keysOf(spaceId);
      let lastReload = now();
      return {
        current() {
          const at = now();
          return keys.find((key) => key.activatesAt <= at) ?? keys.at(-1);
        },
        publicKey: (kid) => keys.find((key) => key.kid === kid)?.publicKey,
        jwks: () => ({ keys: keys.map((key) => key.publicJwk) }),
        async refreshSoon() {
          // A kid this ring lacks: one re-read a second at most, as the shared store does.
          if (now() - lastReload < 1000) return;
          lastReload = now();
          keys = await load(spaceId, keys);
        },
      };
    },
    async forget(spaceId) {
      held.delete(spaceId);
      await readEnabled();
    },
    close: () => clearInterval(timer),
  };
}
