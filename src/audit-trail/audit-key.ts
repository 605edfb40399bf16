import { createPrivateKey, createPublicKey } from 'node:crypto';
import { ConfigError } from '../config/config.js';
import { jsonObject, settingText } from '../config/setting-value.js';
import { AuditKeyRefused, auditPublicKeyOf } from '#audit-log/audit-public-key.js';
import {
  AUDIT_KEY_FILES,
  auditKeyOf,
  generatedAuditKeyJwk,
  readAuditPublicFile,
  writeAuditPublicFile,
  type AuditKey,
} from '#audit-log/audit-key.js';

/** The key that signs the audit trail's tree heads (the package's: its halves, kid and files). */
export type { AuditKey };

/** A JWK given as its JSON, or as `file:<path>` of a file holding it. */
async function configuredJwk(setting: string, value: string, expected: string) {
  return jsonObject(setting, await settingText(setting, value), expected);
}

/**
 * The audit signing key, for the process that signs checkpoints (the projector) and for `npm
 * start`'s supervisor, which hands its public half to the API: AUDIT_SIGNING_KEY (a private
 * Ed25519 JWK, or `file:<path>` of a file holding it), else a key pair generated once into DATA_DIR (mode 600),
 * its public half written beside it for the API.
 */
export async function loadAuditSigningKey(
  configured: string | undefined,
  dataDir: string,
): Promise<AuditKey> {
  const expected = 'a private Ed25519 JWK';
  const jwk = configured
    ? await configuredJwk('AUDIT_SIGNING_KEY', configured, expected)
    : await generatedAuditKeyJwk(dataDir);
  let privateKey;
  try {
    privateKey = createPrivateKey({ key: jwk as never, format: 'jwk' });
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
  } catch {
    // A ConfigError naming the setting, never the key.
    throw new ConfigError([`AUDIT_SIGNING_KEY: is not ${expected}`]);
  }
  const key = auditKeyOf(createPublicKey(privateKey), privateKey);
  if (!configured) await writeAuditPublicFile(dataDir, key);
  return key;
}

/**
 * The audit key's public half, all the internet-facing API needs (it serves it with the
 * checkpoints): AUDIT_PUBLIC_KEY (a JWK, or `file:<path>`), else the public file the signing key's
 * generation wrote into DATA_DIR. Never reads a private key.
 */
export async function loadAuditPublicKey(
  configured: string | undefined,
  dataDir: string,
): Promise<AuditKey> {
  const expected = 'a public Ed25519 JWK';
  const jwk = configured
    ? await configuredJwk('AUDIT_PUBLIC_KEY', configured, expected)
    : await readAuditPublicFile(dataDir);
  if (!jwk) {
    throw new ConfigError([
      `AUDIT_PUBLIC_KEY: not set, and no ${AUDIT_KEY_FILES.public} in DATA_DIR; set it to the audit key's public JWK (GET /v1/audit/checkpoints of a running service shows it), or start the service with npm start, which generates the pair`,
    ]);
  }
  try {
    return auditKeyOf(auditPublicKeyOf(jwk));
  } catch (error) {
    if (!(error instanceof AuditKeyRefused)) throw error;
    throw new ConfigError([
      error.why === 'private'
        ? 'AUDIT_PUBLIC_KEY: holds a private key; give the public JWK only'
        : `AUDIT_PUBLIC_KEY: is not ${expected}`,
    ]);
  }
}
