import { createSecretKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, type JWK, type JWTPayload } from 'jose';

/**
 * The alg × key-type table of the fuzz tests: every path that verifies a JWS is tried with each
 * algorithm against each kind of key it may hold, the header naming a real key.
 */
export const ALGS = [
  'HS256',
  'RS256',
  'PS256',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'none',
] as const;
export type Alg = (typeof ALGS)[number];

/** The key types a JWKS may publish (oct: never a public key, but a header may name one). */
export const KEY_TYPES = ['RSA', 'P-256', 'P-384', 'P-521', 'Ed25519'] as const;
export type KeyType = (typeof KEY_TYPES)[number] | 'oct';

const pairs = new Map<string, { publicKey: KeyObject; privateKey: KeyObject }>();

/**
 * One key pair of each type and role, made once per test file (RSA is slow to make): the
 * `published` keys are the ones a JWKS names, the `forger`'s sign, so no forgery verifies.
 */
export function keyPairOf(
  type: KeyType,
  role: 'published' | 'forger' = 'published',
): { publicKey: KeyObject; privateKey: KeyObject } {
  let pair = pairs.get(`${role} ${type}`);
  if (!pair) {
    if (type === 'oct') {
      const secret = createSecretKey(randomBytes(32));
      pair = { publicKey: secret, privateKey: secret };
    } else if (type === 'RSA') pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    else if (type === 'Ed25519') pair = generateKeyPairSync('ed25519');
    else pair = generateKeyPairSync('ec', { namedCurve: type });
    pairs.set(`${role} ${type}`, pair);
  }
  return pair;
}

/** The public JWK of a type's key, named `kid` (oct: its secret, as a JWKS would leak it). */
export async function publicJwkOf(type: KeyType, kid = type): Promise<JWK> {
  return { ...(await exportJWK(keyPairOf(type).publicKey)), kid };
}

/** The key type an algorithm signs with. */
const SIGNER: Record<Exclude<Alg, 'none'>, KeyType> = {
  HS256: 'oct',
  RS256: 'RSA',
  PS256: 'RSA',
  ES256: 'P-256',
  ES384: 'P-384',
  ES512: 'P-521',
  EdDSA: 'Ed25519',
};

/**
 * A JWS of `alg` over `claims` with `header` (kid, typ, jwk as the path needs), signed by the
 * forger's key of the alg's own type (never by a published key: each is a forgery), or unsigned
 * for `none`.
 */
export async function forgedJws(
  alg: Alg,
  header: Record<string, unknown>,
  claims: JWTPayload,
): Promise<string> {
  if (alg === 'none') {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ ...header, alg })}.${part(claims)}.`;
  }
  return new SignJWT(claims)
    .setProtectedHeader({ ...header, alg })
    .sign(keyPairOf(SIGNER[alg], 'forger').privateKey);
}

/** Every (alg, key type) pair, for `it.each`. */
export const EVERY_PAIR: ReadonlyArray<readonly [Alg, KeyType]> = ALGS.flatMap((alg) =>
  KEY_TYPES.map((type) => [alg, type] as const),
);
