import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readOrCreateFile } from '../config/data-files.js';

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
