import { verify } from 'node:crypto';
import { z } from 'zod';
import { actorClaimSchema, authorizationDetailsSchema, mayActClaimSchema } from './actor-claim.js';
import { ACCESS_TOKEN_ALG } from './algorithms.js';
import {
  keysForIssuer,
  requireIssuedByRing,
  type AccessTokenPolicy,
  type PublicKeys,
} from './issuer-keys.js';
import { TokenRefusal } from './refusal.js';
import { tokenOfKind, type TokenKind } from './token-rules.js';

/** Which of our two access tokens a JWT is. */
export type { TokenKind };

const commonClaims = {
  iss: z.string(),
  sub: z.string(),
  aud: z.string(),
  exp: z.number().int(),
  iat: z.number().int(),
  jti: z.string(),
  client_id: z.string(),
  space_id: z.string(),
  /** DPoP-bound (RFC 9449 §6): the thumbprint of the key every use must prove. */
  cnf: z.object({ jkt: z.string() }).optional(),
  /** The scopes granted (RFC 9068 §2.2.3), space-delimited; absent when none were. */
  scope: z.string().optional(),
  /** Bought (or delegated) by a trusted issuer's assertion: that issuer and the rule it matched. */
  issuer_rule: z.object({ iss: z.string(), issuer_id: z.string(), rule: z.string() }).optional(),
  /** Token Status List §6.1: the list and index where its status is published. */
  status: z
    .object({ status_list: z.object({ idx: z.number().int().min(0), uri: z.string() }) })
    .optional(),
};

/** Claims of a private access token (RFC 9068 plus ours). */
export const privateTokenClaimsSchema = z.object({
  ...commonClaims,
  token_kind: z.literal('private'),
});
export type PrivateTokenClaims = z.infer<typeof privateTokenClaimsSchema>;

/**
 * Claims of a public access token; `act` names the client that issued it (RFC 8693) or, delegated,
 * the agent, the chain nested; `may_act` (§4.4) the agent the customer allowed to exchange it.
 */
export const publicTokenClaimsSchema = z.object({
  ...commonClaims,
  token_kind: z.literal('public'),
  customer_id: z.string(),
  segment_id: z.string(),
  parent_jti: z.string(),
  act: actorClaimSchema,
  may_act: mayActClaimSchema.optional(),
  /** Delegated: the jtis of the tokens it was exchanged from, the nearest first; each voids it. */
  subject_jtis: z.array(z.string()).max(16).optional(),
  /** RFC 9396 §9.1: what the customer allowed the agent, carried into its delegated token. */
  authorization_details: authorizationDetailsSchema.optional(),
});
export type PublicTokenClaims = z.infer<typeof publicTokenClaimsSchema>;

export type AccessTokenClaims = PrivateTokenClaims | PublicTokenClaims;

const accessTokenClaimsSchema = z.discriminatedUnion('token_kind', [
  privateTokenClaimsSchema,
  publicTokenClaimsSchema,
]);

export type { PublicKeys, AccessTokenPolicy } from './issuer-keys.js';

/**
 * Verifies signature, typ, issuer, audience and lifetime, then the claim shape, and requires
 * `kind`: a public token never passes where a private one is expected, and a login token (other
 * issuer, other key, no token_kind) never passes at all.
 *
 * The service's own tokens are checked with Node's synchronous Ed25519 verify rather than jose's WebCrypto
 * path: it is on every /v1/issue request. The rules are the RFC 9068 ones jose applies; the tests
 * verify every token we issue with jose against the JWKS endpoint, as a Storefront API would.
 */
export async function verifyAccessToken<Kind extends TokenKind>(
  token: string,
  kind: Kind | 'any',
  keys: PublicKeys,
  policy: AccessTokenPolicy,
  nowSeconds: number,
): Promise<Extract<AccessTokenClaims, { token_kind: Kind }>> {
  const parts = token.split('.');
  // One token, one spelling: base64url without padding, canonical (no stray trailing bits).
  if (parts.length !== 3 || !parts.every(isCanonicalBase64url)) {
    throw new TokenRefusal('invalid_token', 'token is malformed or not acceptable');
  }
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeJson(encodedHeader) as
    { alg?: unknown; typ?: unknown; kid?: unknown } | undefined;
  if (!header || typeof header !== 'object')
    throw new TokenRefusal('invalid_token', 'token is malformed or not acceptable');
  if (header.alg !== ACCESS_TOKEN_ALG)
    throw new TokenRefusal('invalid_token', 'token algorithm is not accepted');
  const typ =
    typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
  if (typ !== 'at+jwt')
    throw new TokenRefusal('invalid_token', 'token claim "typ" is not acceptable');
  const kid = typeof header.kid === 'string' ? header.kid : '';
  const ring = await keysForIssuer(decodeJson(encodedPayload), keys, policy);
  if (!ring.publicKey(kid)) await ring.refreshSoon();
  const key = ring.publicKey(kid);
  // Our tokens are EdDSA: a JWKS key of another type (Node's verify throws for some) names none.
  if (key?.asymmetricKeyType !== 'ed25519')
    throw new TokenRefusal('invalid_token', 'token is signed by an unknown key');
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (!verify(null, Buffer.from(`${encodedHeader}.${encodedPayload}`), key, signature)) {
    throw new TokenRefusal('invalid_token', 'token signature is invalid');
  }
  const claims = accessTokenClaimsSchema.safeParse(decodeJson(encodedPayload));
  if (!claims.success)
    throw new TokenRefusal('invalid_token', 'token is not an access token of this service');
  const { aud, exp, iat } = claims.data;
  await requireIssuedByRing(ring, keys, policy, claims.data, token);
  if (!policy.audiences.includes(aud))
    throw new TokenRefusal('invalid_token', 'token claim "aud" is not acceptable');
  if (exp <= nowSeconds) throw new TokenRefusal('invalid_token', 'token has expired');
  if (iat > nowSeconds + 60)
    throw new TokenRefusal('invalid_token', 'token claim "iat" is not acceptable');
  return requireKind(claims.data, kind);
}

/** The claims when they are of `kind` (any kind when `kind` is 'any'). */
function requireKind<Kind extends TokenKind>(
  claims: AccessTokenClaims,
  kind: Kind | 'any',
): Extract<AccessTokenClaims, { token_kind: Kind }> {
  if (!tokenOfKind(claims, kind)) {
    throw new TokenRefusal(
      'invalid_token',
      `a ${claims.token_kind} access token cannot be used here; a ${kind} one is required`,
    );
  }
  return claims as Extract<AccessTokenClaims, { token_kind: Kind }>;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isCanonicalBase64url(segment: string): boolean {
  return (
    BASE64URL.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment
  );
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Verifies our access tokens, remembering recent successes. */
export interface AccessTokenVerifier {
  verify<Kind extends TokenKind>(
    token: string,
    kind: Kind,
  ): Promise<Extract<AccessTokenClaims, { token_kind: Kind }>>;
  /** Either kind (introspection, revocation). */
  verifyAny(token: string): Promise<AccessTokenClaims>;
  /** Tokens remembered (for /metrics). */
  size(): number;
}

/**
 * {@link verifyAccessToken} with a bounded memo of tokens that verified. A server reuses its
 * private token for every public token it buys, and the same bytes always verify the same way, so
 * a hit skips the signature check; expiry, kind and that the signing key is still published are
 * checked on every call.
 */
export function createAccessTokenVerifier(
  keys: PublicKeys,
  policy: AccessTokenPolicy,
  options: {
    /** Time as the caller keeps it (the service's Clock port, the kit's `now` option), in ms. */
    readonly clock: { now(): number };
    readonly maxEntries?: number;
  },
): AccessTokenVerifier {
  const maxEntries = options.maxEntries ?? 10_000;
  const nowSeconds = () => Math.floor(options.clock.now() / 1000);
  const verified = new Map<string, { readonly claims: AccessTokenClaims; readonly kid: string }>();
  async function verifyMemoised<Kind extends TokenKind>(token: string, kind: Kind | 'any') {
    const now = nowSeconds();
    const hit = verified.get(token);
    // The key must still be published in the ring that verified it (a space's, or the shared one).
    const ring = hit && hit.claims.exp > now && (await keysForIssuer(hit.claims, keys, policy));
    if (hit && ring && ring.publicKey(hit.kid)) {
      // The service's shared-ring token is judged again: its space may have switched since, or
      // ended its switch-over.
      if (ring === keys && policy.ringOwnedSince)
        await requireIssuedByRing(ring, keys, policy, hit.claims, token);
      return requireKind(hit.claims, kind);
    }
    verified.delete(token);
    const claims = await verifyAccessToken(token, kind, keys, policy, now);
    if (verified.size >= maxEntries) verified.delete(verified.keys().next().value!);
    const kid = (decodeJson(token.slice(0, token.indexOf('.'))) as { kid: string }).kid;
    verified.set(token, { claims, kid });
    return claims;
  }
  return {
    verify: (token, kind) => verifyMemoised(token, kind),
    verifyAny: (token) => verifyMemoised(token, 'any'),
    size: () => verified.size,
  };
}
