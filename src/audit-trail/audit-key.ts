import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import path from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config/config.js';
import { readOrCreateFile } from '#audit-log/read-or-create-file.js';
import { jsonObject, settingText } from '../config/setting-value.js';
import { AuditKeyRefused, auditPublicKeyOf } from '#audit-log/audit-public-key.js';

/**
 * The key that signs the audit trail's tree heads (and, before issue 45, its JWS checkpoints). Not
 * a token-signing key: whoever can rotate or read token keys in the database still cannot forge a
 * signed head.
 */
export interface AuditKey {
  readonly kid: string;
  readonly publicKey: KeyObject;
  /** The public key as a JWK, for verifiers (`verify-export --key`). */
  readonly publicJwk: JWK;
  /** Present where heads are signed (the projector); the API only needs the public half. */
  readonly privateKey?: KeyObject;
}

/** Where the generated audit key pair lives in DATA_DIR (outside production). */
const PRIVATE_FILE = 'audit-key.json';
/**
 * The public half in a folder of its own, so a deployment can share it with the API (a volume
 * mounted read-only) without sharing the folder that holds the private key.
 */
const PUBLIC_FILE = 'audit-public/audit-key.pub.json';
/** Where releases before the audit-public folder wrote it; still read. */
const LEGACY_PUBLIC_FILE = 'audit-key.pub.json';

/** A JWK given as its JSON, or as `file:<path>` of a file holding it. */
async function configuredJwk(setting: string, value: string, expected: string): Promise<JWK> {
  return jsonObject(setting, await settingText(setting, value), expected) as JWK;
}

/** Node's key from a JWK; a ConfigError naming the setting (never the key) when it is not one. */
function keyOf<K>(setting: string, expected: string, make: () => K): K {
  try {
    return make();
  } catch {
    throw new ConfigError([`${setting}: is not ${expected}`]);
  }
}

async function auditKeyOf(publicKey: KeyObject, privateKey?: KeyObject): Promise<AuditKey> {
  const bare = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(bare);
  return {
    kid,
    publicKey,
    publicJwk: { ...bare, kid, alg: 'EdDSA', use: 'sig' },
    ...(privateKey ? { privateKey } : {}),
  };
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
    : (JSON.parse(
        await readOrCreateFile(path.resolve(dataDir, PRIVATE_FILE), () =>
          JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })),
        ),
      ) as JWK);
  const privateKey = keyOf('AUDIT_SIGNING_KEY', expected, () => {
    const key = createPrivateKey({ key: jwk as never, format: 'jwk' });
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
    return key;
  });
  const key = await auditKeyOf(createPublicKey(privateKey), privateKey);
  if (!configured) {
    await readOrCreateFile(path.resolve(dataDir, PUBLIC_FILE), () => JSON.stringify(key.publicJwk));
  }
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
    : (JSON.parse(
        await readFile(path.resolve(dataDir, PUBLIC_FILE), 'utf8')
          .catch(() => readFile(path.resolve(dataDir, LEGACY_PUBLIC_FILE), 'utf8'))
          .catch(() => {
            throw new ConfigError([
              `AUDIT_PUBLIC_KEY: not set, and no ${PUBLIC_FILE} in DATA_DIR; set it to the audit key's public JWK (GET /v1/audit/checkpoints of a running service shows it), or start the service with npm start, which generates the pair`,
            ]);
          }),
      ) as JWK);
  try {
    return await auditKeyOf(auditPublicKeyOf(jwk as Record<string, unknown>));
  } catch (error) {
    if (!(error instanceof AuditKeyRefused)) throw error;
    throw new ConfigError([
      error.why === 'private'
        ? 'AUDIT_PUBLIC_KEY: holds a private key; give the public JWK only'
        : `AUDIT_PUBLIC_KEY: is not ${expected}`,
    ]);
  }
}
