import { integer, nonEmpty, oneOf, optional, text } from '#settings/setting-types.js';

const PKCS11_REQUIRED = 'required with `SIGNING_BACKEND=pkcs11`';

/**
 * Where access-token signing keys are made, kept and sign, and their rotation (docs/operations.md,
 * "Signing keys in an HSM (PKCS#11)").
 */
export const signingSettings = {
  SIGNING_KEY_ENCRYPTION_KEY: optional(
    nonEmpty,
    'generated into `DATA_DIR/signing-key-encryption.key`; production: required',
  ).describe(
    '32 bytes in base64 or base64url (`openssl rand -base64 32`), or `file:<path>` of a file holding them, that seal the token signing keys at rest (AES-256-GCM). Required with `NODE_ENV=production` by the processes that issue (the API, `npm start`, the key commands), not by the projector, `migrate`, `archive` or `verify-chain`; `npm run rewrap-signing-keys` moves to a new one.',
  ),
  SIGNING_BACKEND: oneOf(['local', 'pkcs11'], 'local').describe(
    'Where token signing keys are made and sign: `local` (sealed in the database under `SIGNING_KEY_ENCRYPTION_KEY`) or `pkcs11` (made inside an HSM, never extractable; the database keeps the public JWK and which token holds the key).',
  ),
  PKCS11_MODULE: text('/usr/lib/softhsm/libsofthsm2.so').describe(
    "The PKCS#11 library `SIGNING_BACKEND=pkcs11` loads: the HSM vendor's (the default is Debian's SoftHSM2, for development and the tests).",
  ),
  PKCS11_TOKEN_LABEL: optional(nonEmpty, PKCS11_REQUIRED).describe(
    'The label of the token that holds the signing keys (a label, not a slot number: SoftHSM2 renumbers slots).',
  ),
  PKCS11_PIN: optional(nonEmpty, PKCS11_REQUIRED).describe(
    "The token's user PIN, or `file:<path>` of a file holding it (a final newline is ignored); never logged or echoed, and not given to the projector.",
  ),
  PKCS11_MAX_STUCK_THREADS: integer(1, 64, 4).describe(
    'Signer threads a stalled HSM may hold (a native call past `REQUEST_DEADLINE_MS` cannot be interrupted); at the bound signing answers 503 at once, no new thread starts until a stuck call returns, and `/livez` fails so the process is restarted.',
  ),
  // One key per space must not mean memory without bound.
  SIGNING_KEY_CACHE_MAX_KEYS: integer(1, 10_000_000, 10_000).describe(
    'Signing keys a signer keeps at hand (opened local keys, HSM object handles), the least recently used dropped past it: memory stays bounded whatever the number of keys.',
  ),
  SIGNING_KEY_REFRESH_MS: integer(100, 3_600_000, 1000).describe(
    'How often, in milliseconds, each API process re-reads the signing keys: a rotation or retirement reaches every replica within it.',
  ),
  SPACE_SIGNING_KEYS: oneOf(['on-request', 'all'], 'on-request').describe(
    "Which spaces sign with an issuer and keys of their own (`iss` = `TOKEN_ISSUER/spaces/{id}`, their own JWKS and discovery): `on-request` (those an admin turned on with `POST /v1/space/signing-keys`) or `all` (each space's first key made before its first issuance).",
  ),
  SIGNING_KEY_ROTATION_SECONDS: optional(integer(60), 'by hand only').describe(
    "How long, in seconds (at least 60), the shared key ring's key signs before the scheduled rotation makes its successor.",
  ),
  SPACE_SIGNING_KEY_ROTATION_SECONDS: optional(integer(60), 'by hand only').describe(
    "The same for every space's own key ring.",
  ),
  // At least the JWKS cache time (max-age=300): a verifier that cached the JWKS just before the
  // rotation still knows the key.
  SIGNING_KEY_PUBLISH_AHEAD_SECONDS: integer(300, undefined, 900).describe(
    "How long, in seconds, before it signs a scheduled rotation's new key is published (at least 300, the JWKS cache time).",
  ),
  SIGNING_KEY_ROTATION_CHECK_SECONDS: integer(1, undefined, 60).describe(
    "How often, in seconds, each API process looks for a key ring whose rotation is due (decided under the ring's lock: once across replicas).",
  ),
};
