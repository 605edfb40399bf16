import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The audit key's public half from a JWK, as a reviewer's checks and the service read it: a
 * private JWK is refused (`private`), never used as a public key, and anything that is not a key
 * is `invalid`; neither error carries the key.
 */
export function auditPublicKeyOf(jwk: Readonly<Record<string, unknown>>): KeyObject {
  if ('d' in jwk) throw new AuditKeyRefused('private');
  try {
    return createPublicKey({ key: jwk as never, format: 'jwk' });
  } catch {
    throw new AuditKeyRefused('invalid');
  }
}

/** Why a JWK is not the audit public key: it holds a private key, or is no key. */
export class AuditKeyRefused extends Error {
  constructor(readonly why: 'private' | 'invalid') {
    super(why === 'private' ? 'a private key' : 'not a key');
    this.name = 'AuditKeyRefused';
  }
}
