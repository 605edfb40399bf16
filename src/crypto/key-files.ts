import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readOrCreateFile } from '#audit-log/read-or-create-file.js';
import { key32, settingText } from '../config/setting-value.js';
import { keyEncryptionKey, type KeyEncryptionKey } from './key-encryption.js';

/** SECRET_HASH_KEY when configured, else a key generated once into DATA_DIR. */
export async function loadSecretHashKey(
  configured: string | undefined,
  dataDir: string,
): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'base64');
  const stored = await readOrCreateFile(path.resolve(dataDir, 'secret-hash.key'), () =>
    randomBytes(32).toString('base64url'),
  );
  return Buffer.from(stored.trim(), 'base64url');
}

/**
 * The KEK: SIGNING_KEY_ENCRYPTION_KEY (32 bytes base64/base64url, or `file:<path>`), else made once
 * in DATA_DIR (production refuses that). Errors name `setting`, never the value.
 */
export async function loadKeyEncryptionKey(
  configured: string | undefined,
  dataDir: string,
  setting = 'SIGNING_KEY_ENCRYPTION_KEY',
): Promise<KeyEncryptionKey> {
  const text = configured
    ? await settingText(setting, configured)
    : await readOrCreateFile(path.resolve(dataDir, 'signing-key-encryption.key'), () =>
        randomBytes(32).toString('base64url'),
      );
  return keyEncryptionKey(key32(setting, text));
}
