import type { Pkcs11Errors } from '#pkcs11-signer/errors.js';
import { openPkcs11Signer as openSigner } from '#pkcs11-signer/pkcs11-signer.js';
import type { Pkcs11Settings } from '#pkcs11-signer/settings.js';
import type { Pkcs11Signer, Pkcs11SignerOptions as ThreadOptions } from '#pkcs11-signer/signer.js';
import { ConfigError, type Config } from '../config/config.js';
import { settingText } from '../config/setting-value.js';
import { SYSTEM_SPACE } from '../domain/streams.js';
import { UnavailableError } from '../errors/errors.js';
import { createFairQueue } from '#rate-limit/fair-queue.js';
import type { TokenSigner } from './token-signer.js';

export type { Pkcs11Settings, Pkcs11Signer };

/**
 * Bounds on the signer's queue, in the append queue's terms, and the package's on its thread;
 * `timeoutMs` is also how long a request may wait in the queue.
 */
export type Pkcs11SignerOptions = Omit<ThreadOptions, 'createQueue' | 'keySpace' | 'errors'> & {
  /** Requests waiting for a batch; past it a request is refused (UnavailableError, 503). */
  readonly maxQueued?: number;
  /** Requests of one space waiting: its share, so one tenant's flood leaves the others room. */
  readonly maxQueuedPerSpace?: number;
};

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
  const {
    maxQueued = 10_000,
    maxQueuedPerSpace = maxQueued,
    timeoutMs = 5000,
    ...thread
  } = options;
  return openSigner(settings, {
    ...thread,
    createQueue: (expired) =>
      createFairQueue({ maxQueued, maxQueuedPerSpace, maxWaitMs: timeoutMs, expired }),
    keySpace: SYSTEM_SPACE,
    timeoutMs,
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
