import { sign } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { InvalidTokenError } from '../errors/errors.js';
import { ACCESS_TOKEN_ALG, type KeyStore, type SigningKey } from './signing-keys.js';

/** Which of our two access tokens a JWT is. */
export type TokenKind = 'private' | 'public';

const commonClaims = {
  iss: z.string(),
  sub: z.string(),
  aud: z.string(),
  exp: z.number().int(),
  iat: z.number().int(),
  jti: z.string(),
  client_id: z.string(),
  space_id: z.string(),
};

/** Claims of a private access token (RFC 9068 plus ours). */
export const privateTokenClaimsSchema = z.object({
  ...commonClaims,
  token_kind: z.literal('private'),
});
export type PrivateTokenClaims = z.infer<typeof privateTokenClaimsSchema>;

/** Claims of a public access token; `act` names the client that issued it (RFC 8693). */
export const publicTokenClaimsSchema = z.object({
  ...commonClaims,
  token_kind: z.literal('public'),
  customer_id: z.string(),
  segment_id: z.string(),
  parent_jti: z.string(),
  act: z.object({ sub: z.string() }),
});
export type PublicTokenClaims = z.infer<typeof publicTokenClaimsSchema>;

export type AccessTokenClaims = PrivateTokenClaims | PublicTokenClaims;

const accessTokenClaimsSchema = z.discriminatedUnion('token_kind', [
  privateTokenClaimsSchema,
  publicTokenClaimsSchema,
]);

/**
 * Signs claims as a JWS compact JWT with `typ: at+jwt` (RFC 9068). Node's synchronous Ed25519
 * sign is used directly: the token endpoint's hot path, and a plain JWS any verifier accepts.
 */
export function signAccessToken(key: SigningKey, claims: AccessTokenClaims): string {
  const header = { alg: ACCESS_TOKEN_ALG, typ: 'at+jwt', kid: key.kid };
  const signingInput = `${encode(header)}.${encode(claims)}`;
  const signature = sign(null, Buffer.from(signingInput), key.privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}

/** What a verifier requires of our access tokens. */
export interface AccessTokenPolicy {
  readonly issuer: string;
  readonly audiences: readonly string[];
}

/**
 * Verifies signature, typ, issuer, audience and lifetime, then the claim shape, and requires
 * `kind`: a public token never passes where a private one is expected, and a login token (other
 * issuer, other key, no token_kind) never passes at all.
 */
export async function verifyAccessToken<Kind extends TokenKind>(
  token: string,
  kind: Kind,
  keys: KeyStore,
  policy: AccessTokenPolicy,
): Promise<Extract<AccessTokenClaims, { token_kind: Kind }>> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(
      token,
      async (header) => {
        const kid = header.kid ?? '';
        if (!keys.publicKey(kid)) await keys.refresh();
        const key = keys.publicKey(kid);
        if (!key) throw new InvalidTokenError('token is signed by an unknown key');
        return key;
      },
      {
        algorithms: [ACCESS_TOKEN_ALG],
        typ: 'at+jwt',
        issuer: policy.issuer,
        audience: [...policy.audiences],
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      },
    ));
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    throw new InvalidTokenError(describeJoseError(error));
  }
  const claims = accessTokenClaimsSchema.safeParse(payload);
  if (!claims.success) throw new InvalidTokenError('token is not an access token of this service');
  if (claims.data.token_kind !== kind) {
    throw new InvalidTokenError(
      `a ${claims.data.token_kind} access token cannot be used here; a ${kind} one is required`,
    );
  }
  return claims.data as Extract<AccessTokenClaims, { token_kind: Kind }>;
}

/** A short, safe reason for a rejected JWT (never echoes the token). */
export function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `token claim "${error.claim}" is not acceptable`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'token signature is invalid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not accepted';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'token is signed by an unknown key';
  if (error instanceof joseErrors.JOSEError) return 'token is malformed or not acceptable';
  return 'token could not be verified';
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
