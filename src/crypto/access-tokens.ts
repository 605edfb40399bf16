import { sign, type KeyObject } from 'node:crypto';
import { randomBase64url } from '../domain/ports.js';
import { ACCESS_TOKEN_ALG } from '#verifier/algorithms.js';
import {
  createAccessTokenVerifier as createCheck,
  type AccessTokenClaims,
  type AccessTokenVerifier,
} from '#verifier/access-token-check.js';
import { TokenRefusal } from '#verifier/refusal.js';
import { InvalidDpopProofError, InvalidTokenError } from '../errors/errors.js';
import type { SigningKey } from './key-store.js';

// Verifying is the verifier kit's (packages/verifier), one version for the service and the kit.
export {
  type AccessTokenClaims,
  type AccessTokenVerifier,
  type PrivateTokenClaims,
  type PublicTokenClaims,
} from '#verifier/access-token-check.js';
export { signatureDigest, type PublicKeys } from '#verifier/issuer-keys.js';

/** The JWT types this service signs: access tokens (RFC 9068), status lists and Security Event Tokens (issue 65). */
export type SignedType = 'at+jwt' | 'statuslist+jwt' | 'secevent+jwt';

// A key's encoded header is the same for every token of a type it signs; keys change rarely.
// One map per type: the hot path looks up by kid alone, building no key string per token.
const encodedHeaders: Record<SignedType, Map<string, string>> = {
  'at+jwt': new Map(),
  'statuslist+jwt': new Map(),
  'secevent+jwt': new Map(),
};

/** What a JWS signature covers: the encoded header (`typ`, the key's `kid`) and claims. */
function signingInputOf(key: SigningKey, claims: object, typ: SignedType = 'at+jwt'): string {
  const headers = encodedHeaders[typ];
  let header = headers.get(key.kid);
  if (header === undefined) {
    if (headers.size >= 16) headers.clear();
    header = encode({ alg: ACCESS_TOKEN_ALG, typ, kid: key.kid });
    headers.set(key.kid, header);
  }
  return `${header}.${encode(claims)}`;
}

/**
 * A shared-ring token's claims with a `salt` recorded nowhere. EdDSA is deterministic: without it
 * the claims (every one in the audit trail) and a leaked shared key would sign the very token
 * again, and its signature, the one thing a switch-over honours, would be no secret.
 */
export const salted = (claims: AccessTokenClaims): AccessTokenClaims =>
  Object.assign({ salt: randomBase64url(16) }, claims);

/** Signs claims as a JWS compact `at+jwt` (RFC 9068) with Node's Ed25519 sign directly. */
export function signAccessToken(key: SigningKey, claims: AccessTokenClaims): string {
  if (!key.privateKey) throw new Error(`signing key ${key.kid} is in an HSM: sign off the thread`);
  return jwsOf(key.privateKey, signingInputOf(key, claims));
}

/** The compact JWS of `signingInput` under a key in memory. */
const jwsOf = (privateKey: KeyObject, signingInput: string): string =>
  `${signingInput}.${sign(null, Buffer.from(signingInput), privateKey).toString('base64url')}`;

/** {@link signAccessToken} with any key, an HSM's too. */
export function signAccessTokenWith(key: SigningKey, claims: AccessTokenClaims): Promise<string> {
  return signJwt(key, claims, 'at+jwt', claims.space_id);
}

/**
 * A JWT of `typ` for `spaceId`: a key in memory signs on this thread, an HSM's through its
 * signer's own thread (src/crypto/pkcs11), batched. Not on libuv's pool: measured (`npm run
 * bench`), the hop to a pool thread and back cost more CPU than the 21 µs signature it moved (the
 * API's CPU per token fell from 0.214 to 0.176 ms on this thread); a process's parallelism is its
 * API_WORKERS, and pool threads only contend with them and Postgres for the same cores.
 */
export async function signJwt(
  key: SigningKey,
  claims: object,
  typ: SignedType,
  spaceId: string,
): Promise<string> {
  const signingInput = signingInputOf(key, claims, typ);
  if (key.privateKey) return jwsOf(key.privateKey, signingInput);
  const signature = await key.signer.sign(key.kid, Buffer.from(signingInput), spaceId);
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** The kit's memoised verifier of our tokens, refusing with the service's InvalidTokenError. */
export function createAccessTokenVerifier(
  ...args: Parameters<typeof createCheck>
): AccessTokenVerifier {
  const check = createCheck(...args);
  return {
    verify: (token, kind) => check.verify(token, kind).catch(rethrowAsServiceError),
    verifyAny: (token) => check.verifyAny(token).catch(rethrowAsServiceError),
    size: () => check.size(),
  };
}

/** A refusal of the kit's checks (a token, a DPoP proof) thrown as the service's own error. */
export function rethrowAsServiceError(error: unknown): never {
  if (!(error instanceof TokenRefusal)) throw error;
  throw error.code === 'invalid_token'
    ? new InvalidTokenError(error.message)
    : new InvalidDpopProofError(error.message);
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
