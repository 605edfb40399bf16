import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config/config.js';
import { readOrCreateFile } from '../config/data-files.js';
import { keyEncryptionKey, type KeyEncryptionKey } from './key-encryption.js';

/** SECRET_HASH_KEY when configured, else a key generated once into DATA_DIR. */
export async function loadSecretHashKey(
  configured: string | undefined,
  dataDir: string,
): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'base64url');
  const stored = await readOrCreateFile(path.resolve(dataDir, 'secret-hash.key'), () =>
    randomBytes(32).toString('base64url'),
  );
  return Buffer.from(stored.trim(), 'base64url');
}

/**
 * The key-encryption key that seals the token signing keys: SIGNING_KEY_ENCRYPTION_KEY (32 bytes
 * base64url, or the path of a file holding them), else one generated once into DATA_DIR (mode
 * 600; the config refuses production without the setting).
 */
export async function loadKeyEncryptionKey(
  configured: string | undefined,
  dataDir: string,
): Promise<KeyEncryptionKey> {
  const text = configured
    ? BASE64URL_32.test(configured)
      ? configured
      : await readFile(path.resolve(configured), 'utf8')
    : await readOrCreateFile(path.resolve(dataDir, 'signing-key-encryption.key'), () =>
        randomBytes(32).toString('base64url'),
      );
  const key = Buffer.from(text.trim(), 'base64url');
  if (key.length !== 32) {
    throw new ConfigError([
      'SIGNING_KEY_ENCRYPTION_KEY: expected 32 bytes, base64url encoded (43 chars), or a file holding them',
    ]);
  }
  return keyEncryptionKey(key);
}

const BASE64URL_32 = /^[A-Za-z0-9_-]{43}$/;
