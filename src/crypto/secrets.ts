import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new client id: 128 random bits, URL-safe. */
export function generateClientId(): string {
  return `ci_${randomBytes(16).toString('base64url')}`;
}

// What generateClientId makes: "ci_" and 128 bits in base64url (22 characters).
const CLIENT_ID = /^ci_[A-Za-z0-9_-]{22}$/;

/** Whether `clientId` could be one of ours; anything else is refused before any lookup or count. */
export function isClientIdShaped(clientId: string): boolean {
  return CLIENT_ID.test(clientId);
}

/** A new client secret: 256 random bits, URL-safe. Shown to its owner once, never stored. */
export function generateClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

/** Keyed hashing of client secrets. */
export interface SecretHasher {
  hash(secret: string): Buffer;
  /** Constant-time comparison of `secret` against a stored hash. */
  matches(secret: string, storedHash: Buffer): boolean;
}

/**
 * HMAC-SHA-256 under a server key: a slow hash buys nothing for a 256-bit random secret and would
 * cap grants per second; the key means a stolen database alone cannot test guesses.
 */
export function createSecretHasher(key: Buffer): SecretHasher {
  if (key.length < 32) throw new Error('secret hash key must be at least 32 bytes');
  // Imported once: a raw Buffer key is copied into a new key object on every call.
  const keyObject = createSecretKey(key);
  const hash = (secret: string) => createHmac('sha256', keyObject).update(secret, 'utf8').digest();
  return {
    hash,
    matches(secret, storedHash) {
      const candidate = hash(secret);
      return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
    },
  };
}

/** Whether two texts are equal, in time that tells nothing of where they differ. */
export function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
