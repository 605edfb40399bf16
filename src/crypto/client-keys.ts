import { createPublicKey } from 'node:crypto';

/** Whether a client JWK is a usable public key, checked on arrival so it never fails at each login. */
export function isUsablePublicJwk(jwk: object): boolean {
  try {
    return createPublicKey({ key: jwk as never, format: 'jwk' }).type === 'public';
  } catch {
    return false;
  }
}
