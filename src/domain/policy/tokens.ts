/**
 * What a token stands on: its space, its kind, the client it was issued to, its credential and
 * the revocations that void it.
 */

import { voidingJtis, type IssuedTokenClaims } from '#verifier/token-rules.js';

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

/**
 * A token acts for the client it was issued to alone: only that client revokes it, and a client
 * authenticating beside a subject token must be that token's client.
 */
export function issuedTo(token: { readonly clientId: string }, clientId: string): boolean {
  return token.clientId === clientId;
}

/** A credential authenticates, and its tokens stand, only while it is active (not revoked). */
export function credentialActive(
  credential: { readonly status: string } | undefined,
): credential is { readonly status: 'active' } {
  return credential !== undefined && credential.status === 'active';
}

/**
 * Whether a token has been revoked, by itself or through its parent ({@link voidingJtis}), asking
 * `isRevoked` in that order and no further than the first revoked one.
 */
export async function tokenRevoked(
  token: Parameters<typeof voidingJtis>[0],
  isRevoked: (jti: string) => boolean | Promise<boolean>,
): Promise<boolean> {
  for (const jti of voidingJtis(token)) {
    if (await isRevoked(jti)) return true;
  }
  return false;
}

/**
 * A token bought with another (RFC 8693 exchange) is for the paying token's audience: the only
 * target (audience or RFC 8707 resource) a client may name for it is that one.
 */
export function mayTarget(paying: { readonly aud: string }, target: string): boolean {
  return target === paying.aud;
}

/**
 * A token of the shared ring speaks for a space that signs with its own ring only as one that
 * ring really issued (issue 51): the log's issuance of its jti names the same kind, client,
 * audience, expiry (epoch seconds), scopes and key binding. A holder of the shared key could sign
 * any claims, but not have recorded them.
 */
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
