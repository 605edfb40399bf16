import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database } from '../db/schema.js';
import { perSpaceShare } from '#rate-limit/fair-queue.js';
import type { KeyEncryptionKey } from './key-encryption.js';
import { createLocalSigner } from './local-signer.js';
import { openPkcs11Signer, pkcs11SettingsOf } from './pkcs11-signer.js';
import type { TokenSigner } from './token-signer.js';

/**
 * The signer SIGNING_BACKEND names: `local` (keys sealed in the database under `kek`, the
 * default) or `pkcs11` (keys made and kept in the token PKCS11_TOKEN_LABEL; logged in before this
 * returns, so a wrong PIN or a missing token stops the process at start, as a ConfigError).
 * The PKCS#11 queue is bounded as the append queue is (APPEND_QUEUE_LIMIT, a space's share of it),
 * and a signature the HSM has not made within REQUEST_DEADLINE_MS fails as unavailable (its thread
 * then replaced), as does a request that waited that long for a batch.
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
  });
}
