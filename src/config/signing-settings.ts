import { z } from 'zod';

/**
 * Where access-token signing keys are made and sign (part of the configuration schema, its own
 * file: docs/operations.md, "Signing keys in an HSM (PKCS#11)").
 */
export const signingSettings = {
  /** `local`: keys sealed in the database (the default); `pkcs11`: keys made and kept in an HSM. */
  SIGNING_BACKEND: z.enum(['local', 'pkcs11']).default('local'),
  /** The PKCS#11 library SIGNING_BACKEND=pkcs11 loads (Debian's SoftHSM2 by default). */
  PKCS11_MODULE: z.string().min(1).default('/usr/lib/softhsm/libsofthsm2.so'),
  /** The label of the token holding the keys; required with SIGNING_BACKEND=pkcs11. */
  PKCS11_TOKEN_LABEL: z.string().min(1).optional(),
  /** The token's user PIN, or `file:<path>` of a file holding it; required with pkcs11. */
  PKCS11_PIN: z.string().min(1).optional(),
  /**
   * Signing keys a signer keeps at hand (opened key objects, HSM object handles), the least
   * recently used dropped past it: one key per space must not mean memory without bound.
   */
  SIGNING_KEY_CACHE_MAX_KEYS: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /**
   * Which spaces sign with an issuer and keys of their own (issue 42): `on-request` (those an
   * admin turned on, POST /v1/space/signing-keys) or `all` (each gets its first key before its
   * first issuance).
   */
  SPACE_SIGNING_KEYS: z.enum(['on-request', 'all']).default('on-request'),
  /** How long the shared ring's key signs before the scheduled rotation; unset: by hand only. */
  SIGNING_KEY_ROTATION_SECONDS: z.coerce.number().int().min(60).optional(),
  /** The same for every space's own ring; unset: by hand only. */
  SPACE_SIGNING_KEY_ROTATION_SECONDS: z.coerce.number().int().min(60).optional(),
  /**
   * How long before it signs a scheduled rotation's key is published: at least the JWKS cache
   * time (max-age=300), so a verifier that cached the JWKS just before still knows the key.
   */
  SIGNING_KEY_PUBLISH_AHEAD_SECONDS: z.coerce.number().int().min(300).default(900),
  /** How often the scheduled rotation looks for a ring that is due. */
  SIGNING_KEY_ROTATION_CHECK_SECONDS: z.coerce.number().int().min(1).default(60),
};
