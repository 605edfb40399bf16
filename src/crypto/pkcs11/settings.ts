import { z } from 'zod';
import { ConfigError, type Config } from '../../config/config.js';
import { settingText } from '../../config/setting-value.js';

/** What the PKCS#11 signer needs: the library, the token, its user PIN, and a bound on keys. */
export const pkcs11SettingsSchema = z.object({
  /** The PKCS#11 library (PKCS11_MODULE), loaded by the signer's thread. */
  module: z.string().min(1),
  /** The token's label (PKCS11_TOKEN_LABEL): stable where slot ids are not (SoftHSM2 renumbers). */
  tokenLabel: z.string().min(1),
  /** The user PIN (PKCS11_PIN), read from its file when given as `file:<path>`. */
  pin: z.string().min(1),
  /** Key handles kept (SIGNING_KEY_CACHE_MAX_KEYS); past it the least recently used are dropped. */
  maxKeys: z.number().int().min(1),
  /** The pkcs11js module the thread loads; the HSM tests give a wrapper that stalls a call. */
  binding: z.string().min(1).optional(),
});
export type Pkcs11Settings = z.infer<typeof pkcs11SettingsSchema>;

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
