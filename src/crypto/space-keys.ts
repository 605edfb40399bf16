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

/** The spaces' own rings, read lazily, at most `maxSpaces` held, each re-read after `refreshMs`. */
export interface SpaceKeyStore {
  /** Whether `spaceId` signs with its own ring (all under `all`); synchronous: asked per token. */
  signsOwn(spaceId: string): boolean;
  /**
   * Whether `spaceId` has its own keys. An unknown id reads no ring and evicts none: it is looked up
   * in the set of spaces with keys, re-read every `refreshMs` and on a miss at most once a second,
   * so a just-made ring is found and made-up ids cost the database nothing more.
   */
  hasKeys(spaceId: string): Promise<boolean>;
  /** When the space began its own ring; a shared-ring token naming it must predate it. */
  ownedSince(spaceId: string): Promise<number | undefined>;
  /** The space's ring (read now if not held); empty when the space has no key. */
  ring(spaceId: string): Promise<SpaceRing>;
  /** Drops what is held of a space (its ring just changed here) and re-reads the enabled set. */
  forget(spaceId: string): Promise<void>;
  close(): void;
}

// A miss re-reads the set of spaces with keys at most this often, whoever asks.
const MISS_REREAD_MS = 1000;

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
    /** Waits `ms` (tests pass one that moves their clock). */
    readonly sleep?: (ms: number) => Promise<void>;
  },
): Promise<SpaceKeyStore> {
  const now = options.now ?? Date.now;
  const held = new BoundedCache<string, { keys: LoadedKey[]; loadedAt: number }>(options.maxSpaces);
  const loading = new Map<string, Promise<LoadedKey[]>>();
  let enabled = new Set<string>();
  // Reads are numbered as they begin: a miss waits for one begun after it asked.
  let readsBegun = 0;
  let enabledBy = 0;
  let lastBegunAt = -Infinity;
  let reading: Promise<void> | undefined;
  let missRead: Promise<void> | undefined;
  // Coalesced; `fresh` waits out a read begun before the caller's change, then joins or starts one.
  const readEnabled = async (fresh = false): Promise<void> => {
    if (fresh && reading) await reading.catch(() => undefined);
    return (reading ??= (async () => {
      const read = ++readsBegun;
      lastBegunAt = now();
      const rows = await db
        .selectFrom('signing_keys')
        .select('space_id')
        .where('space_id', 'is not', null)
        .groupBy('space_id')
        .execute();
      enabled = new Set(rows.map((row) => row.space_id!));
      enabledBy = read;
    })().finally(() => (reading = undefined)));
  };
  // Every miss waiting shares one read, begun no sooner than a second after the last began.
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const rereadForMiss = (): Promise<void> => {
    if (missRead) return missRead;
    const wait = lastBegunAt + MISS_REREAD_MS - now();
    // Cleared in a later tick, once set: a miss from then on waits for a read begun after it.
    missRead = (wait > 0 ? sleep(wait) : Promise.resolve()).then(() => {
      missRead = undefined;
      return readEnabled(true);
    });
    return missRead;
  };
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
    // Older than two refreshes: read first: retirements reach workers within 2 × refreshMs.
    if (age >= 2 * options.refreshMs) return load(spaceId, entry.keys);
    // Stale: served as held while one re-read runs.
    if (age >= options.refreshMs) void load(spaceId, entry.keys).catch(() => {});
    return entry.keys;
  }

  return {
    signsOwn: (spaceId) => options.mode === 'all' || enabled.has(spaceId),
    async hasKeys(spaceId) {
      if (enabled.has(spaceId)) return true;
      const asked = readsBegun;
      try {
        // Bounded: one round suffices (readEnabled(true) begins a read after any in flight).
        for (let round = 0; enabledBy <= asked && round < 3; round += 1) await rereadForMiss();
      } catch {
        // The database did not answer: what is held answers, as a made-up id's would.
      }
      return enabled.has(spaceId);
    },
    async ownedSince(spaceId) {
      if (!enabled.has(spaceId)) return undefined;
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
      await readEnabled(true);
    },
    close: () => clearInterval(timer),
  };
}
