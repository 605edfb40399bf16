/** What a token stands on: space, kind, client, credential and revocations. */

import { tokenInSpace, voidingJtis, type IssuedTokenClaims } from '#verifier/token-rules.js';
import { allowedScopes, tokenScopesStillAllowed } from './scopes.js';
import type { ScopeCatalog } from '../scope-catalog.js';

// The rules a resource server applies too are the verifier kit's (packages/verifier), one version.
export {
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

/** A shared-ring token speaks for an own-ring space only if the log recorded its exact issuance. */
export function matchesRecordedIssuance(
  recorded: {
    readonly type: string;
    readonly data: Readonly<Record<string, unknown>>;
    readonly expiresAt: number | undefined;
  },
  claims: IssuedTokenClaims,
): boolean {
  return (
    recorded.type === `${claims.token_kind}-token-issued` &&
    recorded.data.client_id === claims.client_id &&
    recorded.data.audience === claims.aud &&
    recorded.expiresAt === claims.exp &&
    (recorded.data.scope ?? undefined) === (claims.scope ?? undefined) &&
    (recorded.data.cnf_jkt ?? undefined) === claims.cnf?.jkt
  );
}
