import {
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/**
 * ML-DSA-44 (FIPS 204) as Node offers it: from 24.6 on (OpenSSL 3.5), never before. Everything
 * that needs it asks {@link mlDsaAvailable} first, so a Node without it is found out where a key
 * is configured, not mid-request. Keys cross Node as DER; these are ML-DSA-44's fixed prefixes
 * (OID 2.16.840.1.101.3.4.3.17), read from what Node 24 writes.
 */

/** The SPKI prefix around a raw 1,312-byte ML-DSA-44 public key. */
const SPKI_PREFIX = Buffer.from('30820532300b06096086480165030403110382052100', 'hex');
/** PKCS#8 holding only the 32-byte seed (what Node 24.22 writes, and what every 24.6+ reads). */
const PKCS8_SEED_PREFIX = Buffer.from('3034020100300b060960864801650304031104228020', 'hex');
/** PKCS#8 holding the seed and the expanded key (what Node 24.6 writes): the seed comes first. */
const PKCS8_BOTH_PREFIX = Buffer.from(
  '30820a3e020100300b060960864801650304031104820a2a30820a260420',
  'hex',
);

export const ML_DSA_44_PUBLIC_KEY_BYTES = 1312;
export const ML_DSA_44_SIGNATURE_BYTES = 2420;

let available: boolean | undefined;

/** Whether this Node signs and verifies ML-DSA-44; probed once (a key from a fixed seed). */
export function mlDsaAvailable(): boolean {
  if (available === undefined) {
    try {
      const key = mlDsaPrivateKey(Buffer.alloc(32));
      const message = Buffer.from('probe');
      available = verify(null, message, createPublicKey(key), sign(null, message, key));
    } catch {
      available = false;
    }
  }
  return available;
}

/** Why ML-DSA-44 cannot be had here: for a setup error or a check's output. */
export const mlDsaMissing = () =>
  `this Node (${process.version}) has no ML-DSA-44; Node 24.6 or later has`;

/** The private key of a 32-byte seed (FIPS 204 key generation from ξ). */
export const mlDsaPrivateKey = (seed: Buffer): KeyObject =>
  createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, seed]), format: 'der', type: 'pkcs8' });

/** A new private key, from 32 random bytes. */
export const newMlDsaPrivateKey = () => mlDsaPrivateKey(randomBytes(32));

/** A private key's 32-byte seed, from either PKCS#8 form Node writes. */
export function mlDsaSeed(privateKey: KeyObject): Buffer {
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  for (const prefix of [PKCS8_SEED_PREFIX, PKCS8_BOTH_PREFIX]) {
    if (der.subarray(0, prefix.length).equals(prefix)) {
      return der.subarray(prefix.length, prefix.length + 32);
    }
  }
  throw new Error('an ML-DSA-44 private key without its seed');
}

/** Node's public key of the raw 1,312 bytes a vkey carries. */
export const mlDsaPublicKey = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });

/** The raw 1,312 bytes of Node's public key. */
export const rawMlDsaPublicKey = (key: KeyObject): Buffer =>
  key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
