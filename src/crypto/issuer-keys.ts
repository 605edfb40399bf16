import { InvalidTokenError } from '../errors/errors.js';
import type { KeyStore } from './key-store.js';

/** Where a verifier finds the public key of a kid: our key store, or a JWKS fetched remotely. */
export type PublicKeys = Pick<KeyStore, 'publicKey' | 'refreshSoon'>;

/** What a verifier requires of our access tokens. */
export interface AccessTokenPolicy {
  readonly issuer: string;
  readonly audiences: readonly string[];
  /**
   * The service's own verifier only: the key ring of a space with keys of its own (undefined when
   * it has none). A token naming such a space's issuer ({@link spaceIssuer}) is then checked
   * against that ring alone, so no other ring's key (another space's, the shared one) verifies it.
   */
  readonly spaceKeys?: (spaceId: string) => Promise<PublicKeys | undefined>;
}

/** The issuer of a space with keys of its own: `TOKEN_ISSUER/spaces/{space_id}` (issue 42). */
export function spaceIssuer(issuer: string, spaceId: string): string {
  return `${issuer.replace(/\/+$/, '')}/spaces/${encodeURIComponent(spaceId)}`;
}

/**
 * The keys a token is checked with, chosen by the issuer it names (read before its signature is
 * checked, and checked again with the claims after): the verifier's own issuer's, or, for the
 * service, a space's own ring when the token names that space's issuer. Any other issuer is refused.
 */
export async function keysForIssuer(
  claimed: unknown,
  keys: PublicKeys,
  policy: AccessTokenPolicy,
): Promise<PublicKeys> {
  // Unverified yet: only which ring to check with is read from it, the ring's issuer checked after.
  const { iss, space_id: spaceId } = (claimed ?? {}) as { iss?: unknown; space_id?: unknown };
  if (iss === policy.issuer) return keys;
  if (
    policy.spaceKeys &&
    typeof spaceId === 'string' &&
    iss === spaceIssuer(policy.issuer, spaceId)
  ) {
    const ring = await policy.spaceKeys(spaceId);
    if (ring) return ring;
  }
  throw new InvalidTokenError('token claim "iss" is not acceptable');
}

/** Whether verified claims name the issuer of the ring whose key verified them. */
export function issuedByRing(
  ring: PublicKeys,
  keys: PublicKeys,
  policy: AccessTokenPolicy,
  claims: { readonly iss: string; readonly space_id: string },
): boolean {
  const expected = ring === keys ? policy.issuer : spaceIssuer(policy.issuer, claims.space_id);
  return claims.iss === expected;
}
