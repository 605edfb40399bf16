import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import {
  keyEncryptionKey,
  openPrivateKey,
  rewrapPrivateKey,
  sealPrivateKey,
} from '../../src/crypto/key-encryption.js';

const kek = keyEncryptionKey(randomBytes(32));
const other = keyEncryptionKey(randomBytes(32));
const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });

describe('signing keys sealed at rest (AES-256-GCM envelopes)', () => {
  it('seals a private JWK so that its text holds no part of the key, and opens it again', () => {
    const sealed = sealPrivateKey(kek, 'kid-1', jwk);
    expect(JSON.stringify(sealed)).not.toContain(jwk.d!);
    expect(sealed).toMatchObject({ sealed: 'A256GCM-envelope-v1', kek: kek.id });
    expect(openPrivateKey(kek, 'kid-1', sealed)).toEqual(jwk);
  });

  it('refuses another key-encryption key, another kid (a sealed key moved to another row), or an altered byte', () => {
    const sealed = sealPrivateKey(kek, 'kid-1', jwk);
    // Another KEK is the operator's setting, reported as one (one line, exit 2), not a crash.
    expect(() => openPrivateKey(other, 'kid-1', sealed)).toThrow(ConfigError);
    expect(() => openPrivateKey(other, 'kid-1', sealed)).toThrow(
      /^Invalid configuration: SIGNING_KEY_ENCRYPTION_KEY: signing key kid-1 is sealed under/,
    );
    expect(() => openPrivateKey(kek, 'kid-2', sealed)).toThrow();
    const data = Buffer.from(sealed.private_jwk.data, 'base64url');
    data[0] = data[0]! ^ 1;
    const altered = {
      ...sealed,
      private_jwk: { ...sealed.private_jwk, data: data.toString('base64url') },
    };
    expect(() => openPrivateKey(kek, 'kid-1', altered)).toThrow();
  });

  it('rewraps under a new key-encryption key: the new one opens it, the old one no longer does', () => {
    const moved = rewrapPrivateKey(kek, other, 'kid-1', sealPrivateKey(kek, 'kid-1', jwk));
    expect(moved.kek).toBe(other.id);
    expect(openPrivateKey(other, 'kid-1', moved)).toEqual(jwk);
    expect(() => openPrivateKey(kek, 'kid-1', moved)).toThrow();
  });
});
