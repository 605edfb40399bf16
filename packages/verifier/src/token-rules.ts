/**
 * What a resource server holds a token to, as the token service does (its policy re-exports these,
 * src/domain/policy/): its kind, its space, the revocations that void it, the scopes it lacks.
 */

import { actorChain, type ActorClaim } from './actor-claim.js';

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
 * The jtis whose revocation voids a token: its own, and for a public token its parent's (a revoked
 * private token takes the public tokens bought with it along) and, delegated, those of the tokens
 * it was exchanged from (`subject_jtis`: revoking the customer's `may_act` token voids the chain).
 */
export function voidingJtis(token: {
  readonly jti: string;
  readonly token_kind: TokenKind;
  readonly parent_jti?: string;
  readonly subject_jtis?: readonly string[];
}): string[] {
  if (token.token_kind !== 'public' || token.parent_jti === undefined) return [token.jti];
  return [token.jti, token.parent_jti, ...(token.subject_jtis ?? [])];
}

/**
 * A revocation list as resource servers hold it: tokens by jti, clients by when (ms), and the
 * signing keys withdrawn (retired as compromised).
 */
export interface RevokedSet {
  readonly tokens: ReadonlySet<string>;
  readonly clients: ReadonlyMap<string, number>;
  readonly keys: ReadonlySet<string>;
  /** Removed domains of metadata-document clients: a URL client under one is revoked. */
  readonly domains?: ReadonlySet<string>;
}

/** The domain of a client id that is a metadata document's URL; undefined for any other id. */
export const clientDomain = (clientId: string) =>
  URL.canParse(clientId) ? new URL(clientId).hostname : undefined;

/**
 * What a revocation list voids: a token signed by a withdrawn key (`kid`, its header's), a token
 * it names, or whose parent it names ({@link voidingJtis}), and every token standing on a revoked
 * client ({@link tokenCredentials}) or a URL client under a removed domain, whatever its `iat`: a
 * revoked credential never stands again, and a stale replica may mint one after its revocation.
 */
export function revokedByList(
  list: RevokedSet,
  token: Parameters<typeof voidingJtis>[0] & Parameters<typeof tokenCredentials>[0],
  kid: string,
): boolean {
  // Whatever its claims say: the holder of a withdrawn key may sign any of them.
  if (list.keys.has(kid)) return true;
  if (voidingJtis(token).some((jti) => list.tokens.has(jti))) return true;
  // A URL is parsed only when some domain was removed.
  const domains = list.domains?.size ? list.domains : undefined;
  return tokenCredentials(token).some(
    (id) => list.clients.has(id) || domains?.has(clientDomain(id) ?? '') === true,
  );
}

/**
 * The credentials a token stands on: its client's and, delegated, each in its `act` chain (the
 * agents it came through, the storefront last). Revoking or narrowing any of them reaches it.
 */
export function tokenCredentials(token: {
  readonly client_id: string;
  readonly act?: ActorClaim;
}): string[] {
  return [...new Set([token.client_id, ...actorChain(token.act)])];
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
 * Scopes are all-of: what `held` lacks of `required` (empty when it holds them all). A token's
 * granted scopes against a route's, a request against what its credential allows.
 */
export function missingScopes(held: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !held.includes(scope));
}

/**
 * A token still stands on its scopes only while its credential still allows each (one narrowed
 * since refuses it: issue 51, item 9).
 */
export function scopesStillAllowed(tokenScopes: readonly string[], allowed: readonly string[]) {
  return missingScopes(allowed, tokenScopes).length === 0;
}
