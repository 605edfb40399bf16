import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database } from '../db/schema.js';
import { perSpaceShare } from '#rate-limit/fair-queue.js';
import type { KeyEncryptionKey } from './key-encryption.js';
import { createLocalSigner } from './local-signer.js';
import { openPkcs11Signer, pkcs11SettingsOf } from './pkcs11-signer.js';
import type { TokenSigner } from './token-signer.js';

/**
 * The signer SIGNING_BACKEND names: `local` (sealed under `kek`) or `pkcs11` (logged in before this
 * returns, so a wrong PIN stops the start). Its queue is bounded as the append queue is, and a
 * signature not made within REQUEST_DEADLINE_MS fails as unavailable.
 */
export async function openTokenSigner(
  config: Config,
  db: Kysely<Database>,
  kek: KeyEncryptionKey,
): Promise<TokenSigner> {
  if (config.SIGNING_BACKEND === 'local') {
    return createLocalSigner(db, kek, { maxKeys: config.SIGNING_KEY_CACHE_MAX_KEYS });
  }
  return openPkcs11Signer(await pkcs11SettingsOf(config), {
    maxQueued: config.APPEND_QUEUE_LIMIT,
    maxQueuedPerSpace: perSpaceShare(config.APPEND_QUEUE_LIMIT),
    timeoutMs: config.REQUEST_DEADLINE_MS,
    maxStuckThreads: config.PKCS11_MAX_STUCK_THREADS,
  });
}
