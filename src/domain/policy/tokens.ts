/** What a token stands on: space, kind, client, credential and revocations. */

import { timingSafeEqual } from 'node:crypto';
import { tokenInSpace, voidingJtis } from '#verifier/token-rules.js';
import { allowedScopes, tokenScopesStillAllowed } from './scopes.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import { clientActor } from '../actors.js';

// The rules a resource server applies too are the verifier kit's (packages/verifier), one version.
export {
  clientDomain,
  tokenInSpace,
  tokenOfKind,
  voidingJtis,
  revokedByList,
  tokenCredentials,
  type IssuedTokenClaims,
  type RevokedSet,
  type TokenKind,
} from '#verifier/token-rules.js';

/** A token acts for its client alone: only it revokes it or presents it as a subject token. */
export function issuedTo(token: { readonly clientId: string }, clientId: string): boolean {
  return token.clientId === clientId;
}

/**
 * A public token must be DPoP-bound when any credential it is issued through asks so
 * (`require_dpop`): the client's own, or for a delegated one its agent's or the storefront's
 * behind it, consent included.
 */
export function dpopRequired(
  credentials: ReadonlyArray<{ readonly requireDpop: boolean } | undefined>,
): boolean {
  return credentials.some((credential) => credential?.requireDpop === true);
}

/** A credential authenticates, and its tokens stand, only while it is active (not revoked). */
export function credentialActive(
  credential: { readonly status: string } | undefined,
): credential is { readonly status: 'active' } {
  return credential !== undefined && credential.status === 'active';
}

/** Each credential a token came through (tokenCredentials): active, of its space, allowing its scopes. */
export function standsOnCredentials(
  token: Parameters<typeof tokenScopesStillAllowed>[0] & { readonly spaceId: string },
  credentials: ReadonlyArray<(Parameters<typeof allowedScopes>[1] & Standing) | undefined>,
  catalog: ScopeCatalog,
): boolean {
  return credentials.every(
    (credential) =>
      credentialActive(credential) &&
      tokenInSpace(token, credential.spaceId) &&
      tokenScopesStillAllowed(token, allowedScopes(catalog, credential), catalog),
  );
}

type Standing = { readonly status: string; readonly spaceId: string };

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

/**
 * Whose receipt a private token reads (issue 67): only its client's tokens (never an agent's
 * delegated one its storefront bought: that shows the agent's address), each its own, an
 * earlier private token (a revoked one's revocation, its client's doing), or a public token it
 * bought. Never a public token's bearer: a receipt shows the issuing request's metadata.
 */
export function receiptReadable(
  entry: {
    readonly event_type: string;
    readonly data: {
      readonly client_id?: unknown;
      readonly parent_jti?: unknown;
      readonly revoked_by?: unknown;
    };
  },
  reader: { readonly jti: string; readonly clientId: string },
): boolean {
  if (entry.data.client_id !== reader.clientId) return false;
  switch (entry.event_type) {
    case 'private-token-issued':
      return true;
    case 'public-token-issued':
      return entry.data.parent_jti === reader.jti;
    case 'token-revoked':
      return entry.data.revoked_by === clientActor(reader.clientId);
    default:
      return false;
  }
}
