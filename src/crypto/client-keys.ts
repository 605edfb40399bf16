import { createPublicKey } from 'node:crypto';

/**
 * Whether a client's JWK is a public key Node can use (its curve known, its coordinates on it,
 * its modulus a number): checked when the keys arrive, so a credential never holds keys that
 * could only fail later, at every authentication.
 */
export function isUsablePublicJwk(jwk: object): boolean {
  try {
    return createPublicKey({ key: jwk as never, format: 'jwk' }).type === 'public';
  } catch {
    return false;
  }
}
