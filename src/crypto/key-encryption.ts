import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../config/config.js';

/** The key-encryption key (KEK) that wraps every signing key's data key, and its short id. */
export interface KeyEncryptionKey {
  /** The first 16 hex digits of its SHA-256: names the KEK in envelopes, reveals nothing. */
  readonly id: string;
  readonly key: Buffer;
}

/** A KEK from its 32 bytes. */
export function keyEncryptionKey(key: Buffer): KeyEncryptionKey {
  if (key.length !== 32) throw new Error('a key-encryption key is 32 bytes (AES-256)');
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

const sealedPart = z.object({ iv: z.string(), tag: z.string(), data: z.string() });

/**
 * Envelope encryption of a private key: a fresh data key seals the JWK (AES-256-GCM, the kid as
 * associated data, so a key moved to another row does not open); the KEK seals the data key.
 */
export const sealedPrivateKeySchema = z.object({
  sealed: z.literal('A256GCM-envelope-v1'),
  kek: z.string(),
  data_key: sealedPart,
  private_jwk: sealedPart,
});
export type SealedPrivateKey = z.infer<typeof sealedPrivateKeySchema>;

function encrypt(key: Buffer, plaintext: Buffer, aad: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    iv: iv.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
    data: data.toString('base64url'),
  };
}

function decrypt(key: Buffer, part: z.infer<typeof sealedPart>, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(part.iv, 'base64url'))
    .setAAD(Buffer.from(aad, 'utf8'))
    .setAuthTag(Buffer.from(part.tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(part.data, 'base64url')), decipher.final()]);
}

/** Seals a private JWK of key `kid` under `kek`. */
export function sealPrivateKey(
  kek: KeyEncryptionKey,
  kid: string,
  privateJwk: object,
): SealedPrivateKey {
  const dataKey = randomBytes(32);
  return {
    sealed: 'A256GCM-envelope-v1',
    kek: kek.id,
    data_key: encrypt(kek.key, dataKey, `data-key:${kid}`),
    private_jwk: encrypt(dataKey, Buffer.from(JSON.stringify(privateJwk), 'utf8'), `jwk:${kid}`),
  };
}

/** Opens a sealed JWK; throws if altered, a ConfigError if the KEK is another (misconfiguration). */
export function openPrivateKey(kek: KeyEncryptionKey, kid: string, stored: unknown): object {
  const sealed = sealedPrivateKeySchema.parse(stored);
  if (sealed.kek !== kek.id) {
    throw new ConfigError([
      `SIGNING_KEY_ENCRYPTION_KEY: signing key ${kid} is sealed under key-encryption key ${sealed.kek}, not this one (${kek.id}); set the key it was sealed under (npm run rewrap-signing-keys moves keys to a new one)`,
    ]);
  }
  const dataKey = decrypt(kek.key, sealed.data_key, `data-key:${kid}`);
  return JSON.parse(decrypt(dataKey, sealed.private_jwk, `jwk:${kid}`).toString('utf8')) as object;
}

/** The same private key sealed under `to` instead of `from` (only its data key is re-encrypted). */
export function rewrapPrivateKey(
  from: KeyEncryptionKey,
  to: KeyEncryptionKey,
  kid: string,
  stored: unknown,
): SealedPrivateKey {
  const sealed = sealedPrivateKeySchema.parse(stored);
  if (sealed.kek !== from.id) throw new Error(`signing key ${kid} is not sealed under ${from.id}`);
  const dataKey = decrypt(from.key, sealed.data_key, `data-key:${kid}`);
  return { ...sealed, kek: to.id, data_key: encrypt(to.key, dataKey, `data-key:${kid}`) };
}

/** Whether a stored private key is sealed (rows written before sealing existed are not). */
export function isSealed(stored: unknown): boolean {
  return sealedPrivateKeySchema.safeParse(stored).success;
}

/** A short-lived value sealed directly under the KEK (no data key: it is never rewrapped). */
export const sealedValueSchema = z.object({
  sealed: z.literal('A256GCM-v1'),
  kek: z.string(),
  value: sealedPart,
});
export type SealedValue = z.infer<typeof sealedValueSchema>;

/** Seals `plaintext` under `kek`, bound to `binding` (what it belongs to) as associated data. */
export function sealValue(kek: KeyEncryptionKey, binding: string, plaintext: string): SealedValue {
  return {
    sealed: 'A256GCM-v1',
    kek: kek.id,
    value: encrypt(kek.key, Buffer.from(plaintext, 'utf8'), `value:${binding}`),
  };
}

/** Opens a value sealed by {@link sealValue}; undefined when it is under another KEK. */
export function openValue(
  kek: KeyEncryptionKey,
  binding: string,
  stored: unknown,
): string | undefined {
  const sealed = sealedValueSchema.parse(stored);
  if (sealed.kek !== kek.id) return undefined;
  return decrypt(kek.key, sealed.value, `value:${binding}`).toString('utf8');
}
