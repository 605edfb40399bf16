import { decodeProtectedHeader, type JWTPayload } from 'jose';
import { createAccessTokenVerifier } from './access-token-check.js';
import { remotePublicKeys } from './remote-keys.js';
import { checkDpopProof } from './dpop.js';
import { createReplayCache } from './replay-cache.js';
import { RevocationListUnavailable, createRevocationLists } from './revocation-list.js';
import { revokedByList, scopesStillAllowed, tokenInSpace, tokenOfKind } from './token-rules.js';
import { scopeWords } from './scope.js';
import { declaredScopes, requireScopes } from './required-scopes.js';
import { VerifyError } from './verify-error.js';

/** The claims of a token that passed, as the issuer signed them. */
export interface VerifiedToken extends JWTPayload {
  readonly token_kind: 'private' | 'public';
  readonly client_id: string;
  readonly space_id: string;
  readonly jti: string;
  readonly customer_id?: string;
  readonly segment_id?: string;
  readonly parent_jti?: string;
  readonly cnf?: { readonly jkt: string };
  /** The scopes granted, space-delimited (RFC 9068 §2.2.3); absent when none were. */
  readonly scope?: string;
}

/** The request parts verification reads: any framework's request fits. */
export interface VerifiableRequest {
  readonly method: string;
  /**
   * The URL DPoP proofs must name: the resource server's configured public origin and the path
   * (never built from a client-sent Host or X-Forwarded-Host, which a proof for another
   * deployment would name).
   */
  readonly url: string;
  header(name: string): string | undefined;
}

/** Options of {@link createVerifier}. */
export interface VerifierOptions {
  /**
   * The issuer whose tokens are accepted: the token service's base URL (its shared issuer), or a
   * space's own issuer, `{base}/spaces/{space_id}` (issue 42), whose tokens alone then pass: keys
   * from `{issuer}/.well-known/jwks.json`, which lists that space's keys only.
   */
  readonly issuer: string;
  /**
   * The token service's base URL, where revocation lists are read; by default the issuer, less a
   * trailing `/spaces/{space_id}`.
   */
  readonly serviceUrl?: string;
  /** The audience(s) this resource server accepts. */
  readonly audience: string | readonly string[];
  /** The token kinds accepted unless a route says otherwise; default: public only. */
  readonly kinds?: readonly ('private' | 'public')[];
  /**
   * The scopes every route requires unless it says otherwise (all of them; default none). A token
   * lacking one is refused with 403 `insufficient_scope`.
   */
  readonly requiredScopes?: readonly string[];
  /** How often a space's revocation list is re-polled (seconds; default 10). */
  readonly revocationRefreshSeconds?: number;
  /** How stale a revocation list may be before tokens are refused (seconds; default 60). */
  readonly revocationMaxStaleSeconds?: number;
  /** DPoP proof ids remembered at once (default 100,000); past it new proofs get 503. */
  readonly replayCacheMaxEntries?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/** What one route accepts; each given replaces the verifier's default. */
export interface RouteRequirements {
  /** The token kinds this route accepts. */
  readonly kinds?: readonly ('private' | 'public')[];
  /**
   * The scopes this route requires, all of them (RFC 6749 §3.3 words; `[]`: none). A token
   * lacking one is refused with 403 and `WWW-Authenticate: Bearer error="insufficient_scope",
   * scope="…"` (RFC 6750 §3.1), after the token itself verified.
   */
  readonly requiredScopes?: readonly string[];
}

/** A verifier for the tokens of one token service; see {@link createVerifier}. */
export interface Verifier {
  verify(request: VerifiableRequest, options?: RouteRequirements): Promise<VerifiedToken>;
}

const TOKEN = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Verifies access tokens as a resource server must: the signature against the issuer's JWKS
 * (cached; fetched again for a key id it has not seen, so key rotation needs nothing), issuer,
 * audience, expiry and `typ` at+jwt; the token kind the route allows; revocation, from the
 * space's revocation list polled with ETag (at most revocationMaxStaleSeconds stale, else 503);
 * for a DPoP-bound token, a proof by its key for this method and URL with the token's `ath`,
 * used once; and last, the scopes the route requires (a token that is not valid is 401 whatever
 * its scopes; a valid one lacking a scope is 403).
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  // The same verification the service applies to its own tokens (Node's Ed25519, a memo of
  // tokens already verified), on keys fetched from the JWKS endpoint.
  const tokens = createAccessTokenVerifier(
    remotePublicKeys(`${issuer}/.well-known/jwks.json`, doFetch),
    {
      issuer: options.issuer,
      audiences: typeof options.audience === 'string' ? [options.audience] : [...options.audience],
    },
    { clock: { now } },
  );
  // A space's own issuer speaks for that space alone: a token of it naming another space (which
  // only a holder of its key could sign) would be checked against the other space's list.
  const spaceOfIssuer = /\/spaces\/([^/]+)$/.exec(issuer)?.[1];
  const issuerSpace = spaceOfIssuer === undefined ? undefined : decodeURIComponent(spaceOfIssuer);
  const revocations = createRevocationLists({
    issuer: (options.serviceUrl ?? issuer.replace(/\/spaces\/[^/]+$/, '')).replace(/\/+$/, ''),
    refreshMs: (options.revocationRefreshSeconds ?? 10) * 1000,
    maxStaleMs: (options.revocationMaxStaleSeconds ?? 60) * 1000,
    fetch: doFetch,
    now,
  });
  const replays = createReplayCache(options.replayCacheMaxEntries);
  const defaultScopes = declaredScopes(options.requiredScopes);

  return {
    async verify(request, routeOptions) {
      const kinds = routeOptions?.kinds ?? options.kinds ?? ['public'];
      const authorization = request.header('authorization');
      const match = authorization ? TOKEN.exec(authorization) : null;
      if (!match) {
        throw new VerifyError('invalid_token', 'an access token is required (Bearer or DPoP)', 401);
      }
      const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
      const token = match[2]!;
      let claims: VerifiedToken;
      try {
        claims = (await tokens.verifyAny(token)) as VerifiedToken;
      } catch (error) {
        throw new VerifyError('invalid_token', (error as Error).message, 401);
      }
      if (!kinds.some((kind) => tokenOfKind(claims, kind))) {
        throw new VerifyError(
          'invalid_token',
          `a ${claims.token_kind} token is not accepted here`,
          401,
        );
      }
      if (issuerSpace !== undefined && !tokenInSpace({ spaceId: claims.space_id }, issuerSpace)) {
        throw new VerifyError(
          'invalid_token',
          'the token names another space than its issuer',
          401,
        );
      }
      await checkNotRevoked(claims, String(decodeProtectedHeader(token).kid));
      await checkBinding(request, scheme, token, claims);
      const required = routeOptions?.requiredScopes;
      requireScopes(
        claims,
        required === undefined ? defaultScopes : declaredScopes(required),
        scheme,
      );
      return claims;
    },
  };

  async function checkNotRevoked(claims: VerifiedToken, kid: string): Promise<void> {
    let list;
    try {
      list = await revocations.of(claims.space_id);
    } catch (error) {
      if (error instanceof RevocationListUnavailable)
        throw new VerifyError('unavailable', error.message, 503);
      throw error;
    }
    // A withdrawn key stops verifying within the list's refresh, though the JWKS held may list it
    // for its max-age yet (issue 51).
    if (revokedByList(list.revoked, claims, kid)) {
      throw new VerifyError('invalid_token', 'the token has been revoked', 401);
    }
    // A credential narrowed since: its tokens carrying a scope it no longer allows are refused,
    // as introspection refuses them. The kit knows no catalog: see docs/verify.md.
    const allowed = list.narrowedClients.get(claims.client_id);
    if (allowed && !scopesStillAllowed(scopeWords(claims.scope), allowed)) {
      throw new VerifyError(
        'invalid_token',
        'the token carries a scope its credential no longer allows',
        401,
      );
    }
  }

  async function checkBinding(
    request: VerifiableRequest,
    scheme: 'Bearer' | 'DPoP',
    token: string,
    claims: VerifiedToken,
  ): Promise<void> {
    const jkt = claims.cnf?.jkt;
    if (!jkt) {
      if (scheme === 'DPoP')
        throw new VerifyError('invalid_token', 'the token is not DPoP-bound', 401);
      return;
    }
    if (scheme !== 'DPoP') {
      throw new VerifyError('invalid_token', 'a DPoP-bound token must come as "DPoP <token>"', 401);
    }
    const proof = request.header('dpop');
    if (!proof || proof.includes(',')) {
      throw new VerifyError('invalid_dpop_proof', 'one DPoP proof is required', 401);
    }
    let checked;
    try {
      checked = await checkDpopProof(proof, {
        method: request.method.toUpperCase(),
        url: request.url,
        nowMs: now(),
        accessToken: token,
      });
    } catch (error) {
      throw new VerifyError('invalid_dpop_proof', (error as Error).message, 401);
    }
    if (checked.jkt !== jkt) {
      throw new VerifyError(
        'invalid_dpop_proof',
        'the proof is signed by another key than the token is bound to',
        401,
      );
    }
    const verdict = replays.firstUse(`${jkt}:${checked.jti}`, checked.expiresAt.getTime(), now());
    if (verdict === 'replay') {
      throw new VerifyError('invalid_dpop_proof', 'this DPoP proof was already used', 401);
    }
    if (verdict === 'full') {
      throw new VerifyError(
        'unavailable',
        'too many DPoP proofs in flight to remember another; retry shortly',
        503,
      );
    }
  }
}
