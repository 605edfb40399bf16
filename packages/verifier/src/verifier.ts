import { decodeProtectedHeader } from 'jose';
import { createAccessTokenVerifier } from './access-token-check.js';
import { remotePublicKeys } from './remote-keys.js';
import { RevocationListUnavailable, createRevocationLists } from './revocation-list.js';
import { StatusListUnavailable, createStatusLists } from './status-lists.js';
import {
  revokedByList,
  scopesStillAllowed,
  tokenCredentials,
  clientDomain,
  tokenInSpace,
  tokenOfKind,
} from './token-rules.js';
import { scopeText, scopeWords } from './scope.js';
import { declaredScopes, requireScopes } from './required-scopes.js';
import { actorsOf, declaredDelegation, requireDelegation } from './delegation-rule.js';
import { createDpopBinding } from './dpop-binding.js';
import { resourceMetadataOf } from './resource-metadata.js';
import { spaceIssuer } from './issuer-keys.js';
import { createSignalReceiver, SignalRefused } from './signals.js';
import { VerifyError } from './verify-error.js';
import type {
  RouteRequirements,
  VerifiableRequest,
  VerifiedToken,
  Verifier,
  VerifierOptions,
} from './verifier-types.js';

export type {
  RouteRequirements,
  VerifiableRequest,
  VerifiedToken,
  Verifier,
  VerifierOptions,
} from './verifier-types.js';

const TOKEN = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;
// One object for every call without route options: its declaration is checked once, not per call.
const NO_ROUTE: RouteRequirements = Object.freeze({});

/**
 * Verifies access tokens as a resource server must: the signature against the issuer's JWKS
 * (cached; fetched again for a key id it has not seen, so key rotation needs nothing), issuer,
 * audience, expiry and `typ` at+jwt; the token kind the route allows; revocation, from the
 * space's revocation list polled with ETag (at most revocationMaxStaleSeconds stale, else 503);
 * for a DPoP-bound token, a proof by its key for this method and URL with the token's `ath`,
 * used once; and last, the scopes and the delegation the route requires (a token that is not
 * valid is 401 whatever its scopes; a valid one the route does not take is 403). With
 * `resourceMetadata`, every 401 and 403 challenge names it (RFC 9728 §5.1).
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  // The same verification the service applies to its own tokens (Node's Ed25519, a memo of
  // tokens already verified), on keys fetched from the JWKS endpoint.
  const keys = remotePublicKeys(`${issuer}/.well-known/jwks.json`, doFetch);
  const tokens = createAccessTokenVerifier(
    keys,
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
  const serviceBase = issuer.replace(/\/spaces\/[^/]+$/, '');
  const fetchBase = (options.serviceUrl ?? serviceBase).replace(/\/+$/, '');
  const maxStaleMs = (options.revocationMaxStaleSeconds ?? 60) * 1000;
  const revocations = createRevocationLists({
    issuer: fetchBase,
    refreshMs: (options.revocationRefreshSeconds ?? 10) * 1000,
    maxStaleMs,
    fetch: doFetch,
    now,
  });
  const statusLists =
    options.statusLists === false
      ? undefined
      : createStatusLists({ keys, serviceBase, fetchBase, fetch: doFetch, now, maxStaleMs });
  const checkBinding = createDpopBinding({
    replayCacheMaxEntries: options.replayCacheMaxEntries,
    now,
  });
  const defaultScopes = declaredScopes(options.requiredScopes);
  const resourceMetadata =
    options.resourceMetadata && resourceMetadataOf(options.issuer, options.resourceMetadata);
  const signals = options.signals;
  // A stream's SETs are signed by its space's own ring: the kit's keys when it is that issuer.
  const signalIssuer = signals && spaceIssuer(serviceBase, signals.space);
  const receiveSignal =
    signals &&
    createSignalReceiver({
      keys:
        signalIssuer === issuer
          ? keys
          : remotePublicKeys(`${signalIssuer}/.well-known/jwks.json`, doFetch),
      issuer: signalIssuer!,
      streamId: signals.streamId,
      ...(signals.secret === undefined ? {} : { secret: signals.secret }),
      now,
      heard: (heard) => revocations.heard(signals.space, heard),
    });

  return {
    resourceMetadata,
    async receiveSignal(pushed) {
      if (!receiveSignal) throw new SignalRefused('invalid_request', 'no stream is received here');
      await receiveSignal(pushed);
    },
    async verify(request, routeOptions) {
      try {
        return await verifyRequest(request, routeOptions ?? NO_ROUTE);
      } catch (error) {
        // A 503 is no question of credentials: it names no metadata.
        if (error instanceof VerifyError && resourceMetadata && error.status !== 503)
          throw error.withResourceMetadata(resourceMetadata.url);
        throw error;
      }
    },
  };

  async function verifyRequest(
    request: VerifiableRequest,
    route: RouteRequirements,
  ): Promise<VerifiedToken> {
    const kinds = route.kinds ?? options.kinds ?? ['public'];
    const required =
      route.requiredScopes === undefined ? defaultScopes : declaredScopes(route.requiredScopes);
    declaredDelegation(route);
    const authorization = request.header('authorization');
    const match = authorization ? TOKEN.exec(authorization) : null;
    if (!match) {
      throw new VerifyError('invalid_token', 'an access token is required (Bearer or DPoP)', 401, {
        noToken: authorization === undefined || authorization === '',
        ...(required.length === 0 ? {} : { scope: scopeText(required) }),
      });
    }
    const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
    const token = match[2]!;
    let signed;
    try {
      signed = await tokens.verifyAny(token);
    } catch (error) {
      throw new VerifyError('invalid_token', (error as Error).message, 401);
    }
    // A copy: the memo's claims are shared by every request with this token.
    const claims: VerifiedToken = {
      ...signed,
      actors: actorsOf(signed.token_kind === 'public' ? signed : {}),
    };
    if (!kinds.some((kind) => tokenOfKind(claims, kind))) {
      throw new VerifyError(
        'invalid_token',
        `a ${claims.token_kind} token is not accepted here`,
        401,
      );
    }
    if (issuerSpace !== undefined && !tokenInSpace({ spaceId: claims.space_id }, issuerSpace)) {
      throw new VerifyError('invalid_token', 'the token names another space than its issuer', 401);
    }
    await checkNotRevoked(claims, String(decodeProtectedHeader(token).kid));
    if (statusLists && claims.status) await checkStatus(claims, claims.status.status_list);
    await checkBinding(request, scheme, token, claims);
    requireScopes(claims, required, scheme);
    requireDelegation(claims.actors, route, scheme);
    return claims;
  }

  // Draft-ietf-oauth-status-list §8.3: the entry the token names, in a list its issuer signed.
  async function checkStatus(claims: VerifiedToken, status: { idx: number; uri: string }) {
    let value;
    try {
      value = await statusLists!.statusOf(status, claims.iss!);
    } catch (error) {
      // The revocation list, checked before and fresh, holds every rule the status list does but
      // a trusted issuer's rule removed or narrowed: only such a token waits for its list (503).
      if (error instanceof StatusListUnavailable) {
        if (!('issuer_rule' in claims)) return;
        throw new VerifyError('unavailable', error.message, 503);
      }
      throw new VerifyError('invalid_token', (error as Error).message, 401);
    }
    if (value !== 0) {
      throw new VerifyError('invalid_token', 'the token has been revoked (its status list)', 401);
    }
  }

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
    const held = scopeWords(claims.scope);
    const domains = list.narrowedDomains;
    const narrowed = tokenCredentials(claims).map(
      (id) =>
        list.narrowedClients.get(id) ??
        (domains.size ? domains.get(clientDomain(id) ?? '') : undefined),
    );
    if (narrowed.some((allowed) => allowed && !scopesStillAllowed(held, allowed))) {
      throw new VerifyError(
        'invalid_token',
        'the token carries a scope its credential no longer allows',
        401,
      );
    }
  }
}
