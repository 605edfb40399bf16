import type { Pkcs11Errors } from '#pkcs11-signer/errors.js';
import { openPkcs11Signer as openSigner } from '#pkcs11-signer/pkcs11-signer.js';
import type { Pkcs11Settings } from '#pkcs11-signer/settings.js';
import type { Pkcs11Signer } from '#pkcs11-signer/signer.js';
import { ConfigError, type Config } from '../config/config.js';
import { settingText } from '../config/setting-value.js';
import { SYSTEM_SPACE } from '../domain/streams.js';
import { UnavailableError } from '../errors/errors.js';
import { createFairQueue } from '#rate-limit/fair-queue.js';
import type { TokenSigner } from './token-signer.js';

export type { Pkcs11Settings, Pkcs11Signer };

/** Bounds on the signer's queue, in the append queue's terms. */
export interface Pkcs11SignerOptions {
  /** Requests waiting for a batch; past it a request is refused (UnavailableError, 503). */
  readonly maxQueued?: number;
  /** Requests of one space waiting: its share, so one tenant's flood leaves the others room. */
  readonly maxQueuedPerSpace?: number;
  /** Requests in one message to the thread. */
  readonly maxBatch?: number;
  /** Batches posted and unanswered: two keep the thread busy while one answer travels back. */
  readonly maxInFlightBatches?: number;
  /** A batch (or login) unanswered this long fails, its thread replaced; a waiting request too. */
  readonly timeoutMs?: number;
  /** Threads a stalled HSM may hold before signing fails at once and health says `stuck`. */
  readonly maxStuckThreads?: number;
}

/** The package's failures as the service's: 503 when it cannot sign, a ConfigError at start. */
const SERVICE_ERRORS: Pkcs11Errors = {
  unavailable: (message, cause) =>
    cause === undefined ? new UnavailableError(message) : new UnavailableError(message, { cause }),
  setting: (setting, message) => new ConfigError([`${setting}: ${message}`]),
};

/** The PKCS#11 signer as a {@link TokenSigner}: the append queue's fairness (#rate-limit/fair-queue.ts), the service's errors. */
export async function openPkcs11Signer(
  settings: Pkcs11Settings,
  options: Pkcs11SignerOptions = {},
): Promise<Pkcs11Signer & TokenSigner> {
  const { maxQueued = 10_000, timeoutMs = 5000 } = options;
  return openSigner(settings, {
    createQueue: (expired) =>
      createFairQueue({
        maxQueued,
        maxQueuedPerSpace: options.maxQueuedPerSpace ?? maxQueued,
        maxWaitMs: timeoutMs,
        expired,
      }),
    keySpace: SYSTEM_SPACE,
    maxBatch: options.maxBatch,
    maxInFlightBatches: options.maxInFlightBatches,
    timeoutMs,
    maxStuckThreads: options.maxStuckThreads,
    errors: SERVICE_ERRORS,
  });
}

/** The PKCS#11 settings of `config`; a ConfigError naming what is missing. */
export async function pkcs11SettingsOf(config: Config): Promise<Pkcs11Settings> {
  const missing = (['PKCS11_TOKEN_LABEL', 'PKCS11_PIN'] as const).filter((name) => !config[name]);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${name}: required with SIGNING_BACKEND=pkcs11`));
  }
  // A PIN file written by an editor ends with a newline the token would take as part of the PIN.
  const pin = (await settingText('PKCS11_PIN', config.PKCS11_PIN!)).replace(/\r?\n$/, '');
  return {
    module: config.PKCS11_MODULE,
    tokenLabel: config.PKCS11_TOKEN_LABEL!,
    pin,
    maxKeys: config.SIGNING_KEY_CACHE_MAX_KEYS,
  };
}
