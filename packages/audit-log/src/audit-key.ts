import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { readOrCreateFile } from './read-or-create-file.js';

/**
 * The key that signs a log's tree heads (and, before token-authority's issue 45, its JWS
 * checkpoints): an Ed25519 pair. Not a token-signing key: whoever can rotate or read token keys
 * still cannot forge a signed head.
 */
export interface AuditKey {
  /** The public key's RFC 7638 thumbprint. */
  readonly kid: string;
  readonly publicKey: KeyObject;
  /** The public key as a JWK, for verifiers (`verify-export --key`). */
  readonly publicJwk: Readonly<Record<string, string>>;
  /** Present where heads are signed (the projector); the API only needs the public half. */
  readonly privateKey?: KeyObject;
}

/** RFC 7638: the members a thumbprint covers, by key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  OKP: ['crv', 'kty', 'x'],
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
};

/** A public JWK's RFC 7638 thumbprint: SHA-256 of its required members' JSON, base64url. */
export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>): string {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)] ?? ['kty'];
  const json = JSON.stringify(Object.fromEntries(members.map((name) => [name, jwk[name]])));
  return createHash('sha256').update(json).digest('base64url');
}

/** The audit key of a public half (and the private half, where heads are signed). */
export function auditKeyOf(publicKey: KeyObject, privateKey?: KeyObject): AuditKey {
  const bare = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const kid = jwkThumbprint(bare);
  return {
    kid,
    publicKey,
    publicJwk: { ...bare, kid, alg: 'EdDSA', use: 'sig' },
    ...(privateKey ? { privateKey } : {}),
  };
}

/** Where a generated audit key pair lives in a data folder. */
export const AUDIT_KEY_FILES = {
  private: 'audit-key.json',
  /**
   * The public half in a folder of its own, so a deployment can share it with the API (a volume
   * mounted read-only) without sharing the folder that holds the private key.
   */
  public: 'audit-public/audit-key.pub.json',
  /** Where token-authority's releases before the audit-public folder wrote it; still read. */
  legacyPublic: 'audit-key.pub.json',
} as const;

/** The private JWK generated once into `dataDir` (mode 600), however many processes start. */
export async function generatedAuditKeyJwk(dataDir: string): Promise<Record<string, unknown>> {
  const text = await readOrCreateFile(path.resolve(dataDir, AUDIT_KEY_FILES.private), () =>
    JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })),
  );
  return JSON.parse(text) as Record<string, unknown>;
}

/** Writes the generated pair's public half beside it, once, for the API. */
export async function writeAuditPublicFile(dataDir: string, key: AuditKey): Promise<void> {
  await readOrCreateFile(path.resolve(dataDir, AUDIT_KEY_FILES.public), () =>
    JSON.stringify(key.publicJwk),
  );
}

/** The public JWK the generation wrote into `dataDir` (undefined when there is none). */
export async function readAuditPublicFile(
  dataDir: string,
): Promise<Record<string, unknown> | undefined> {
  const read = (name: string) => readFile(path.resolve(dataDir, name), 'utf8');
  const text = await read(AUDIT_KEY_FILES.public)
    .catch(() => read(AUDIT_KEY_FILES.legacyPublic))
    .catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}
