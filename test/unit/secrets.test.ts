import { describe, expect, it } from 'vitest';
import {
  createSecretHasher,
  generateClientId,
  generateClientSecret,
} from '../../src/crypto/secrets.js';

describe('client secrets', () => {
  it('generates 256-bit secrets and 128-bit ids, never twice the same', () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateClientSecret));
    expect(secrets.size).toBe(1000);
    for (const secret of secrets)
      expect(Buffer.from(secret.slice(3), 'base64url')).toHaveLength(32);
    expect(Buffer.from(generateClientId().slice(3), 'base64url')).toHaveLength(16);
  });

  it('matches only the secret it hashed, and depends on the key', () => {
    const hasher = createSecretHasher(Buffer.alloc(32, 7));
    const secret = generateClientSecret();
    const hash = hasher.hash(secret);
    expect(hasher.matches(secret, hash)).toBe(true);
    expect(hasher.matches(`${secret}x`, hash)).toBe(false);
    expect(hasher.matches(secret, Buffer.alloc(32))).toBe(false);
    expect(createSecretHasher(Buffer.alloc(32, 8)).matches(secret, hash)).toBe(false);
    expect(hash.toString('hex')).not.toContain(Buffer.from(secret).toString('hex'));
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => createSecretHasher(Buffer.alloc(16))).toThrow();
  });
});
