import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ACCESS_TOKEN_ALG } from '#verifier/algorithms.js';
import { openPrivateKey, type KeyEncryptionKey } from './key-encryption.js';
import { isHsmKeyReference, type TokenSigner } from './token-signer.js';
import { ConfigError } from '../config/config.js';

/** A key that can sign, and its id: its private half in this process, or in an HSM. */
export type SigningKey = LocalSigningKey | HsmSigningKey;

/** A key opened here (sealed in the database): signed with by Node's Ed25519 directly. */
export interface LocalSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

/** A key whose private half never leaves an HSM: signed with through the signer's port. */
export interface HsmSigningKey {
  readonly kid: string;
  readonly privateKey?: undefined;
  readonly signer: TokenSigner;
}

/** Keys to sign with and to publish. */
export interface KeyStore {
  /** The newest key already active; every token is signed with it. */
  current(): SigningKey;
  publicKey(kid: string): KeyObject | undefined;
  /** The JWKS document served at /.well-known/jwks.json: every published key, active or not yet. */
  jwks(): { readonly keys: readonly JWK[] };
  /** Re-reads keys from the database (another replica may have rotated). */
  refresh(): Promise<void>;
  /** An unknown kid: one shared reload per cooldown, so made-up kids cost one query per cooldown. */
  refreshSoon(): Promise<void>;
  close(): void;
}

/** A published key as loaded: its private half (or its signer), public key and activation. */
export type LoadedKey = SigningKey & {
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;
  readonly activatesAt: number;
};

/** The published keys, re-read every `refreshMs`: every replica signs alike. */
export async function openKeyStore(
  db: Kysely<Database>,
  options: {
    /** Opens the sealed private keys (SIGNING_KEY_ENCRYPTION_KEY). */
    readonly kek: KeyEncryptionKey;
    /** HSM keys' signer (SIGNING_BACKEND=pkcs11); closed with the store. */
    readonly signer?: TokenSigner;
    readonly refreshMs?: number;
    readonly now?: () => number;
    readonly refreshCooldownMs?: number;
  },
): Promise<KeyStore> {
  const now = options.now ?? Date.now;
  const loadKeys = () => loadPublishedKeys(db, options.kek, options.signer);
  const keys = await loadKeys();
  if (keys.length === 0) throw new Error('no signing key is published; run the first-key command');
  await requireKeysInToken(keys);
  const state = { keys, fingerprint: await keysFingerprint(db) };
  const cooldownMs = options.refreshCooldownMs ?? 1000;
  let refreshing: Promise<void> | undefined;
  let lastRefreshAt = now();
  const timer = options.refreshMs
    ? setInterval(() => void store.refresh().catch(() => undefined), options.refreshMs)
    : undefined;
  timer?.unref();
  const store: KeyStore = {
    current() {
      const at = now();
      // Keys are newest first; the first already active signs. The oldest is the last resort.
      return state.keys.find((key) => key.activatesAt <= at) ?? state.keys.at(-1)!;
    },
    publicKey: (kid) => state.keys.find((key) => key.kid === kid)?.publicKey,
    jwks: () => ({ keys: state.keys.map((key) => key.publicJwk) }),
    refresh() {
      refreshing ??= (async () => {
        // One small query per refresh; keys are re-imported only when something changed.
        const fingerprint = await keysFingerprint(db);
        lastRefreshAt = now();
        if (fingerprint === state.fingerprint) return;
        const fresh = await loadKeys();
        if (fresh.length > 0) state.keys = fresh;
        state.fingerprint = fingerprint;
      })().finally(() => (refreshing = undefined));
      return refreshing;
    },
    async refreshSoon() {
      if (refreshing) return refreshing;
      if (now() - lastRefreshAt < cooldownMs) return;
      return store.refresh();
    },
    close() {
      clearInterval(timer);
      void options.signer?.close();
    },
  };
  return store;
}

/** At start, each HSM key must be in the token with the published public half, or a ConfigError. */
async function requireKeysInToken(keys: readonly LoadedKey[]): Promise<void> {
  for (const key of keys) {
    if (key.privateKey) continue;
    const found = await key.signer.publicJwk(key.kid);
    if (found?.x !== key.publicJwk.x) {
      throw new ConfigError([
        `PKCS11_TOKEN_LABEL: the token holds no key ${key.kid} (published in the JWKS); set the token that made it`,
      ]);
    }
  }
}

/** A cheap summary of the key table: changes whenever a key is added, activated or retired. */
async function keysFingerprint(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ fingerprint: string | null }>`
    SELECT string_agg(kid || '/' || activates_at::text || '/' || coalesce(retired_at::text, ''),
                      ',' ORDER BY kid) AS fingerprint
    FROM signing_keys
    WHERE space_id IS NULL AND (retired_at IS NULL OR retired_at > now())`.execute(db);
  return rows[0]?.fingerprint ?? '';
}

/** One ring's published keys, newest first; keys already in `opened` are not opened again. */
export async function loadPublishedKeys(
  db: Kysely<Database>,
  kek: KeyEncryptionKey,
  signer: TokenSigner | undefined,
  spaceId: string | null = null,
  opened: readonly LoadedKey[] = [],
): Promise<LoadedKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk', 'public_jwk', 'activates_at'])
    .where((eb) => (spaceId === null ? eb('space_id', 'is', null) : eb('space_id', '=', spaceId)))
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', sql<Date>`now()`)]))
    .orderBy('activates_at', 'desc')
    .orderBy('kid')
    .execute();
  const held = new Map(opened.map((key) => [key.kid, key]));
  return rows.map(
    (row) =>
      held.get(row.kid) ??
      ({
        ...privateHalf(row.kid, row.private_jwk, kek, signer),
        publicKey: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
        publicJwk: row.public_jwk as JWK,
        activatesAt: row.activates_at.getTime(),
      } satisfies LoadedKey),
  );
}

/** A key opened from its sealed private half, or named for the HSM signer that holds it. */
function privateHalf(
  kid: string,
  stored: unknown,
  kek: KeyEncryptionKey,
  signer: TokenSigner | undefined,
): SigningKey {
  if (!isHsmKeyReference(stored)) {
    const jwk = openPrivateKey(kek, kid, stored);
    return { kid, privateKey: createPrivateKey({ key: jwk as never, format: 'jwk' }) };
  }
  if (signer?.backend !== stored.hsm) {
    throw new ConfigError([
      `SIGNING_BACKEND: signing key ${kid} lives in a PKCS#11 token (${JSON.stringify(stored.token)}); set SIGNING_BACKEND=pkcs11 and the PKCS11_ settings of that token`,
    ]);
  }
  return { kid, signer };
}

/** A new Ed25519 key: its id (RFC 7638 thumbprint) and its JWKs, private and public. */
export interface NewSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** Generates a signing key; it signs nothing until a signing-key-generated event adds it. */
export async function generateSigningKey(): Promise<NewSigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg: ACCESS_TOKEN_ALG,
    privateJwk: privateKey.export({ format: 'jwk' }) as JWK,
    publicJwk: { ...publicJwk, kid, alg: ACCESS_TOKEN_ALG, use: 'sig' },
  };
}
