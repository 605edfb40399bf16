import { z } from 'zod';

/** What the PKCS#11 signer needs: the library, the token, its user PIN, and a bound on keys. */
export const pkcs11SettingsSchema = z.object({
  /** The PKCS#11 library (PKCS11_MODULE), loaded by the signer's thread. */
  module: z.string().min(1),
  /** The token's label (PKCS11_TOKEN_LABEL): stable where slot ids are not (SoftHSM2 renumbers). */
  tokenLabel: z.string().min(1),
  /** The user PIN itself (PKCS11_PIN; a PIN file is read by the caller). */
  pin: z.string().min(1),
  /** Key handles kept (SIGNING_KEY_CACHE_MAX_KEYS); past it the least recently used are dropped. */
  maxKeys: z.number().int().min(1),
  /** The pkcs11js module the thread loads; the HSM tests give a wrapper that stalls a call. */
  binding: z.string().min(1).optional(),
});
export type Pkcs11Settings = z.infer<typeof pkcs11SettingsSchema>;
