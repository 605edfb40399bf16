import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { sql, type Kysely } from 'kysely';
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
  /** The newest key already active; every token is signed with it. */
  current(): SigningKey;
  /** Public key for `kid`, if published. */
  publicKey(kid: string): KeyObject | undefined;
  /** The JWKS document served at /.well-known/jwks.json: every published key, active or not yet. */
  jwks(): { readonly keys: readonly JWK[] };
  /** Re-reads keys from the database (another replica may have rotated). */
  refresh(): Promise<void>;
  /** Stops the periodic refresh. */
  close(): void;
}

interface LoadedKey extends SigningKey {
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;
  readonly activatesAt: number;
}

// Serialises "is there a key? if not, make one" across processes starting together.
const FIRST_KEY_LOCK = 7_214_903_313;

/**
 * Loads the published signing keys, generating the first one if there is none, and re-reads them
 * every `refreshMs` so a rotation done anywhere reaches every replica. Keys live in the database,
 * not on a replica's disk, so all replicas sign with and publish the same set.
 */
export async function openKeyStore(
  db: Kysely<Database>,
  options: { readonly refreshMs?: number; readonly now?: () => number } = {},
): Promise<KeyStore> {
  const now = options.now ?? Date.now;
  let keys = await loadKeys(db);
  if (keys.length === 0) {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${FIRST_KEY_LOCK})`.execute(trx);
      if ((await loadKeys(trx)).length === 0) await insertKey(trx, new Date());
    });
    keys = await loadKeys(db);
  }
  const state = { keys };
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
    async refresh() {
      const fresh = await loadKeys(db);
      if (fresh.length > 0) state.keys = fresh;
    },
    close: () => clearInterval(timer),
  };
  return store;
}

/**
 * Rotation, step one of two in a single call: add a key that becomes active `activateInSeconds`
 * from now (long enough for every replica and every verifier's JWKS cache to learn it), and mark
 * the keys it replaces to leave the JWKS `retireAfterSeconds` after that (the longest token
 * lifetime, so every token they signed has expired). Returns the new key id.
 */
export async function rotateSigningKey(
  db: Kysely<Database>,
  options: { readonly activateInSeconds: number; readonly retireAfterSeconds: number },
): Promise<{ readonly kid: string; readonly activatesAt: Date; readonly retiresOthersAt: Date }> {
  const activatesAt = new Date(Date.now() + options.activateInSeconds * 1000);
  const retiresOthersAt = new Date(activatesAt.getTime() + options.retireAfterSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('signing_keys')
      .set({ retired_at: retiresOthersAt })
      .where('retired_at', 'is', null)
      .execute();
    const kid = await insertKey(trx, activatesAt);
    return { kid, activatesAt, retiresOthersAt };
  });
}

async function loadKeys(db: Kysely<Database>): Promise<LoadedKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk', 'public_jwk', 'activates_at'])
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', sql<Date>`now()`)]))
    .orderBy('activates_at', 'desc')
    .orderBy('kid')
    .execute();
  return rows.map((row) => ({
    kid: row.kid,
    privateKey: createPrivateKey({ key: row.private_jwk as never, format: 'jwk' }),
    publicKey: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
    publicJwk: row.public_jwk as JWK,
    activatesAt: row.activates_at.getTime(),
  }));
}

async function insertKey(db: Kysely<Database>, activatesAt: Date): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk);
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: ACCESS_TOKEN_ALG,
      private_jwk: JSON.stringify(privateKey.export({ format: 'jwk' })),
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: ACCESS_TOKEN_ALG, use: 'sig' }),
      activates_at: activatesAt,
      retired_at: null,
    })
    .execute();
  return kid;
}
