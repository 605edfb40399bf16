import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import {
  ML_DSA_44_PUBLIC_KEY_BYTES,
  mlDsaAvailable,
  mlDsaPrivateKey,
  mlDsaPublicKey,
  mlDsaSeed,
  rawMlDsaPublicKey,
} from './ml-dsa.js';

/**
 * The key types of signed-note key ids and vkeys (C2SP signed-note), and the bytes each carries:
 * a note's own signature and a cosignature/v1 (Ed25519: a 32-byte key, a 32-byte seed), and a
 * subtree/v1 cosignature (ML-DSA-44: a 1,312-byte key, a 32-byte seed). Here Node's keys become
 * those bytes and back.
 */
export const NOTE_ED25519 = 0x01;
export const COSIGNATURE_ED25519 = 0x04;
export const COSIGNATURE_ML_DSA_44 = 0x06;
export type Ed25519Type = typeof NOTE_ED25519 | typeof COSIGNATURE_ED25519;
export type KeyType = Ed25519Type | typeof COSIGNATURE_ML_DSA_44;

/** Node's DER prefixes around a raw 32-byte Ed25519 key. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export const isKeyType = (type: number | undefined): type is KeyType =>
  type === NOTE_ED25519 || type === COSIGNATURE_ED25519 || type === COSIGNATURE_ML_DSA_44;

/** The length of a key type's raw public key. */
export const rawKeyBytes = (type: KeyType) =>
  type === COSIGNATURE_ML_DSA_44 ? ML_DSA_44_PUBLIC_KEY_BYTES : 32;

/** The raw public key of Node's key, which must be of the type's algorithm. */
export function rawPublicKey(type: KeyType, key: KeyObject): Buffer {
  const mlDsa = type === COSIGNATURE_ML_DSA_44;
  if (String(key.asymmetricKeyType) !== (mlDsa ? 'ml-dsa-44' : 'ed25519')) {
    throw new Error(mlDsa ? 'a 0x06 key is ML-DSA-44' : 'note keys are Ed25519');
  }
  if (mlDsa) return rawMlDsaPublicKey(key);
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

/** Node's public key of raw bytes; undefined for ML-DSA-44 on a Node without it. */
export function publicKeyOf(type: KeyType, raw: Buffer): KeyObject | undefined {
  if (type === COSIGNATURE_ML_DSA_44) return mlDsaAvailable() ? mlDsaPublicKey(raw) : undefined;
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The 32-byte seed of Node's private key (what a signer key's text holds). */
export const seedOf = (type: KeyType, key: KeyObject): Buffer =>
  type === COSIGNATURE_ML_DSA_44
    ? mlDsaSeed(key)
    : key.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);

/** Node's private key of a 32-byte seed; ML-DSA-44 throws on a Node without it. */
export const privateKeyOf = (type: KeyType, seed: Buffer): KeyObject =>
  type === COSIGNATURE_ML_DSA_44
    ? mlDsaPrivateKey(seed)
    : createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
