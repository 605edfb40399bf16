import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { BoundedCache } from './bounded-cache.js';
import { openPrivateKey, sealPrivateKey, type KeyEncryptionKey } from './key-encryption.js';
import { generateSigningKey } from './key-store.js';
import type { GeneratedSigningKey, TokenSigner } from './token-signer.js';

/** A new Ed25519 key made in this process, its private half sealed under `kek` for the database. */
export async function generateSealedSigningKey(
  kek: KeyEncryptionKey,
): Promise<GeneratedSigningKey> {
  const material = await generateSigningKey();
  return {
    kid: material.kid,
    alg: material.alg,
    publicJwk: material.publicJwk,
    stored: sealPrivateKey(kek, material.kid, material.privateJwk),
  };
}

/**
 * The default signer: sealed keys opened on first use, at most `maxKeys` held, signing on this
 * thread (why not on libuv's pool: signJwt, access-tokens.ts). The token endpoint signs with the
 * key store's key object directly, not through here.
 */
export function createLocalSigner(
  db: Kysely<Database>,
  kek: KeyEncryptionKey,
  options: { readonly maxKeys?: number } = {},
): TokenSigner {
  const opened = new BoundedCache<string, KeyObject>(options.maxKeys ?? 10_000);
  async function privateKeyOf(kid: string): Promise<KeyObject> {
    const held = opened.get(kid);
    if (held) return held;
    const row = await db
      .selectFrom('signing_keys')
      .select('private_jwk')
      .where('kid', '=', kid)
      .executeTakeFirst();
    if (!row) throw new Error(`no signing key ${kid}`);
    const key = createPrivateKey({
      key: openPrivateKey(kek, kid, row.private_jwk) as never,
      format: 'jwk',
    });
    opened.set(kid, key);
    return key;
  }
  return {
    backend: 'local',
    generate: () => generateSealedSigningKey(kek),
    // A local key exists only in the memory of whoever made it until a ring records it.
    discard: async () => undefined,
    async sign(kid, signingInput) {
      return sign(null, signingInput, await privateKeyOf(kid));
    },
    async publicJwk(kid) {
      const row = await db
        .selectFrom('signing_keys')
        .select('public_jwk')
        .where('kid', '=', kid)
        .executeTakeFirst();
      return row?.public_jwk as JWK | undefined;
    },
    health: () => ({ ok: true }),
    close: async () => undefined,
  };
}
