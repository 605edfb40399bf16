/**
 * What a token stands on: its space, its kind, the client it was issued to, its credential and
 * the revocations that void it.
 */

import { msOf } from '../times.js';

/** The two kinds of access token: a client's private token, a customer's public one. */
export type TokenKind = 'private' | 'public';

/**
 * A token is its space's business alone: a public token is bought only for the private token's
 * own space, and a client introspects or revokes only tokens of its own space (anything else is
 * answered as if the token did not exist).
 */
export function tokenInSpace(token: { readonly spaceId: string }, spaceId: string): boolean {
  return token.spaceId === spaceId;
}

/**
 * A token is accepted only where its kind is: /v1/issue and token exchange take a private token,
 * never a public one a browser holds. `any`: either kind.
 */
export function tokenOfKind(
  token: { readonly token_kind: TokenKind },
  kind: TokenKind | 'any',
): boolean {
  return kind === 'any' || token.token_kind === kind;
}

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
 * The jtis whose revocation voids a token: its own, and for a public token its parent's (a revoked
 * private token takes the public tokens bought with it along).
 */
export function voidingJtis(token: {
  readonly jti: string;
  readonly token_kind: TokenKind;
  readonly parent_jti?: string;
}): string[] {
  return token.token_kind === 'public' && token.parent_jti !== undefined
    ? [token.jti, token.parent_jti]
    : [token.jti];
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
 * A revocation list as resource servers hold it: tokens by jti, clients by when (ms), and the
 * signing keys withdrawn (retired as compromised).
 */
export interface RevokedSet {
  readonly tokens: ReadonlySet<string>;
  readonly clients: ReadonlyMap<string, number>;
  readonly keys: ReadonlySet<string>;
}

/**
 * What a revocation list voids: a token signed by a withdrawn key (`kid`, its header's), a token
 * it names, or whose parent it names ({@link voidingJtis}), and every token of a revoked client
 * issued up to its revocation.
 */
export function revokedByList(
  list: RevokedSet,
  token: Parameters<typeof voidingJtis>[0] & { readonly client_id: string; readonly iat?: number },
  kid: string,
): boolean {
  // Whatever its claims say: the holder of a withdrawn key may sign any of them, `iat` included.
  if (list.keys.has(kid)) return true;
  if (voidingJtis(token).some((jti) => list.tokens.has(jti))) return true;
  const clientRevokedAt = list.clients.get(token.client_id);
  return clientRevokedAt !== undefined && msOf(token.iat ?? 0) <= clientRevokedAt;
}

/**
 * A token bought with another (RFC 8693 exchange) is for the paying token's audience: the only
 * target (audience or RFC 8707 resource) a client may name for it is that one.
 */
export function mayTarget(paying: { readonly aud: string }, target: string): boolean {
  return target === paying.aud;
}

/** What a verified access token says of its issuance. */
export interface IssuedTokenClaims {
  readonly iss: string;
  readonly space_id: string;
  readonly token_kind: TokenKind;
  readonly client_id: string;
  readonly aud: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  readonly scope?: string;
  readonly cnf?: { readonly jkt: string };
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
