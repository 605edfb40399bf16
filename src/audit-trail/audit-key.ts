import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import path from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { CheckpointStatement } from './audit-checkpoints.js';
import { readOrCreateFile } from '../config/data-files.js';

/**
 * The key that signs audit checkpoints. Not a token-signing key: whoever can rotate or read token
 * keys in the database still cannot forge a checkpoint.
 */
export interface AuditKey {
  readonly kid: string;
  readonly publicKey: KeyObject;
  /** The public key as a JWK, for verifiers (`verify-export --key`). */
  readonly publicJwk: JWK;
  /** Present where checkpoints are signed (the projector); the API only needs the public half. */
  readonly privateKey?: KeyObject;
}

/**
 * AUDIT_SIGNING_KEY (a private Ed25519 JWK) when configured, else a key generated once into
 * DATA_DIR/audit-key.json (mode 0600). Every projector replica must use the same key.
 */
export async function loadAuditKey(
  configured: string | undefined,
  dataDir: string,
): Promise<AuditKey> {
  const jwkText =
    configured ??
    (await readOrCreateFile(path.resolve(dataDir, 'audit-key.json'), () =>
      JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })),
    ));
  const privateKey = createPrivateKey({ key: JSON.parse(jwkText) as never, format: 'jwk' });
  const publicKey = createPublicKey(privateKey);
  const bare = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(bare);
  return {
    kid,
    privateKey,
    publicKey,
    publicJwk: { ...bare, kid, alg: 'EdDSA', use: 'sig' },
  };
}

const TYP = 'audit-checkpoint+jws';

/** Signs a statement as a compact JWS (EdDSA). */
export function signCheckpoint(key: AuditKey, statement: CheckpointStatement): string {
  if (!key.privateKey) throw new Error('this audit key has no private half');
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'EdDSA', typ: TYP, kid: key.kid })}.${encode(statement)}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

/** The statement of a checkpoint whose signature verifies under `publicKey`, else undefined. */
export function verifyCheckpoint(
  publicKey: KeyObject,
  jws: string,
): CheckpointStatement | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const protectedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as {
      alg?: string;
      typ?: string;
    };
    if (protectedHeader.alg !== 'EdDSA' || protectedHeader.typ !== TYP) return undefined;
    const valid = verify(
      null,
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
    return valid
      ? (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CheckpointStatement)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The statement of a checkpoint, signature not checked (to report what a forged one claims). */
export function readCheckpointStatement(jws: string): CheckpointStatement | undefined {
  try {
    return JSON.parse(
      Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as CheckpointStatement;
  } catch {
    return undefined;
  }
}
