import { createHash, type KeyObject } from 'node:crypto';
import { TokenRefusal } from './refusal.js';
import type { IssuedTokenClaims } from './token-rules.js';

/** Where a verifier finds the public key of a kid: the service's key store, or a JWKS fetched. */
export interface PublicKeys {
  publicKey(kid: string): KeyObject | undefined;
  /** Reads the keys again soon (a kid not held may be a rotation). */
  refreshSoon(): Promise<void>;
}

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
  /**
   * The service's own verifier only: when a space began signing with a ring of its own (ms since
   * the epoch), undefined while it has none. A token of the shared ring naming such a space is
   * trusted only as one the shared ring really issued before then ({@link requireIssuedByRing}):
   * so a leaked shared key mints nothing a space with its own ring accepts, and from
   * `transitionSeconds` (the longest token lifetime) after the switch no shared-ring token of the
   * space is accepted at all.
   */
  readonly ringOwnedSince?: (spaceId: string) => Promise<number | undefined>;
  readonly transitionSeconds?: number;
  /**
   * Whether the token of these claims and this {@link signatureDigest} is the very one the shared
   * ring issued, and its space's switch-over still stands (see requireIssuedByRing).
   */
  readonly recordedIssuance?: (claims: IssuedTokenClaims, digest: Buffer) => Promise<boolean>;
}

/**
 * What only the token issued has (the service keeps it beside its log): the SHA-256 of its
 * signature (encoded, the JWS's third part), 128 bits: matching a kept one is a second preimage.
 */
export const signatureDigest = (signature: string): Buffer =>
  createHash('sha256').update(Buffer.from(signature, 'base64url')).digest().subarray(0, 16);

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
  throw new TokenRefusal('invalid_token', 'token claim "iss" is not acceptable');
}

/**
 * Refuses verified claims that do not name the issuer of the ring whose key verified them. A token
 * of the shared ring naming a space that signs with a ring of its own (`ringOwnedSince`) is also
 * refused, but for one the shared ring issued before the switch, expiring within the transition,
 * and the very token issued (`recordedIssuance`, asked with its signature's digest; without it,
 * none). `token` is the compact JWS, its signature read only then.
 */
export async function requireIssuedByRing(
  ring: PublicKeys,
  keys: PublicKeys,
  policy: AccessTokenPolicy,
  claims: IssuedTokenClaims,
  token: string,
): Promise<void> {
  const expected = ring === keys ? policy.issuer : spaceIssuer(policy.issuer, claims.space_id);
  if (claims.iss !== expected)
    throw new TokenRefusal('invalid_token', 'token claim "iss" is not acceptable');
  const since = ring === keys ? await policy.ringOwnedSince?.(claims.space_id) : undefined;
  if (since === undefined) return;
  const sinceSeconds = since / 1000;
  const inTransition =
    claims.iat < sinceSeconds && claims.exp <= sinceSeconds + (policy.transitionSeconds ?? 0);
  const digest = inTransition && signatureDigest(token.slice(token.lastIndexOf('.') + 1));
  if (!digest || !((await policy.recordedIssuance?.(claims, digest)) ?? false))
    throw new TokenRefusal(
      'invalid_token',
      'token of the shared issuer for a space that signs with its own keys: use one its own issuer signed',
    );
}
