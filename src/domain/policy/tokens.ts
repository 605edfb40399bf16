/** What a token stands on: space, kind, client, credential and revocations. */

import { timingSafeEqual } from 'node:crypto';
import { voidingJtis } from '#verifier/token-rules.js';

// The rules a resource server applies too are the verifier kit's (packages/verifier), one version.
export {
  tokenInSpace,
  tokenOfKind,
  voidingJtis,
  revokedByList,
  type IssuedTokenClaims,
  type RevokedSet,
  type TokenKind,
} from '#verifier/token-rules.js';

/** A token acts for its client alone: only it revokes it or presents it as a subject token. */
export function issuedTo(token: { readonly clientId: string }, clientId: string): boolean {
  return token.clientId === clientId;
}

/** A credential authenticates, and its tokens stand, only while it is active (not revoked). */
export function credentialActive(
  credential: { readonly status: string } | undefined,
): credential is { readonly status: 'active' } {
  return credential !== undefined && credential.status === 'active';
}

/** Revoked itself or through its parent, asking `isRevoked` until one is revoked. */
export async function tokenRevoked(
  token: Parameters<typeof voidingJtis>[0],
  isRevoked: (jti: string) => boolean | Promise<boolean>,
): Promise<boolean> {
  for (const jti of voidingJtis(token)) {
    if (await isRevoked(jti)) return true;
  }
  return false;
}

/** An exchanged token's only allowed target is the paying token's audience. */
export function mayTarget(paying: { readonly aud: string }, target: string): boolean {
  return target === paying.aud;
}

/**
 * A shared-ring token speaks for a space with its own ring only as the very token issued: its
 * signature's digest is the one kept at its issuance (compared in constant time; the signature
 * binds every claim), and no admin has ended the space's switch-over.
 */
export function honouredInSwitchOver(
  kept: { readonly digest: Uint8Array; readonly ended: boolean } | undefined,
  presented: Uint8Array,
): boolean {
  return (
    kept !== undefined &&
    !kept.ended &&
    kept.digest.length === presented.length &&
    timingSafeEqual(kept.digest, presented)
  );
}
