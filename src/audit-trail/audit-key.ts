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

/** The JWK `setting` gives (its JSON, or `file:<path>` of a file holding it), else `fallback`'s. */
async function settingJwk<Fallback>(
  setting: string,
  configured: string | undefined,
  expected: string,
  fallback: () => Promise<Fallback>,
) {
  return configured
    ? jsonObject(setting, await settingText(setting, configured), expected)
    : fallback();
}

/** The audit signing key: AUDIT_SIGNING_KEY (JWK or `file:<path>`), else made once in DATA_DIR. */
export async function loadAuditSigningKey(
  configured: string | undefined,
  dataDir: string,
): Promise<AuditKey> {
  const expected = 'a private Ed25519 JWK';
  const jwk = await settingJwk('AUDIT_SIGNING_KEY', configured, expected, () =>
    generatedAuditKeyJwk(dataDir),
  );
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

/** The audit key's public half for the API: AUDIT_PUBLIC_KEY or DATA_DIR's; never a private key. */
export async function loadAuditPublicKey(
  configured: string | undefined,
  dataDir: string,
): Promise<AuditKey> {
  const expected = 'a public Ed25519 JWK';
  const jwk = await settingJwk('AUDIT_PUBLIC_KEY', configured, expected, () =>
    readAuditPublicFile(dataDir),
  );
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
