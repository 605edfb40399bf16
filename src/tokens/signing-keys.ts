import {
  generateKeyPairSync,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The algorithm of every access token. Ed25519: small, fast, and deterministic. */
export const ACCESS_TOKEN_ALG = 'EdDSA';

/** A key that can sign, and its id. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

/** Keys to sign with and to publish. */
export interface KeyStore {
  /** The newest key; every token is signed with it. */
  current(): SigningKey;
  /** Public key for `kid`, if published. */
  publicKey(kid: string): KeyObject | undefined;
  /** The JWKS document served at /.well-known/jwks.json. */
  jwks(): { readonly keys: readonly JWK[] };
  /** Re-reads keys from the database (another replica may have added one). */
  refresh(): Promise<void>;
}

/**
 * Loads the signing keys from the database, generating the first one if there is none. Keys live
 * in the database, not on a replica's disk, so every replica signs with and publishes the same set.
 */
export async function openKeyStore(db: Kysely<Database>): Promise<KeyStore> {
  let keys = await loadKeys(db);
  if (keys.length === 0) {
    await insertNewKey(db);
    keys = await loadKeys(db);
  }
  const state = { keys };
  const store: KeyStore = {
    current: () => state.keys[0]!,
    publicKey: (kid) => state.keys.find((key) => key.kid === kid)?.publicKey,
    jwks: () => ({ keys: state.keys.map((key) => key.publicJwk) }),
    async refresh() {
      const fresh = await loadKeys(db);
      if (fresh.length > 0) state.keys = fresh;
    },
  };
  return store;
}

interface LoadedKey extends SigningKey {
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;
}

async function loadKeys(db: Kysely<Database>): Promise<LoadedKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk', 'public_jwk'])
    .where('retired_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute();
  return rows.map((row) => ({
    kid: row.kid,
    privateKey: createPrivateKey({ key: row.private_jwk as never, format: 'jwk' }),
    publicKey: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
    publicJwk: row.public_jwk as JWK,
  }));
}

async function insertNewKey(db: Kysely<Database>): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk);
  const published = { ...publicJwk, kid, alg: ACCESS_TOKEN_ALG, use: 'sig' };
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: ACCESS_TOKEN_ALG,
      private_jwk: JSON.stringify(privateKey.export({ format: 'jwk' })),
      public_jwk: JSON.stringify(published),
      retired_at: null,
    })
    .execute();
}
