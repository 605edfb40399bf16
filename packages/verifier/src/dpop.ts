import { createHash } from 'node:crypto';
import {
  EmbeddedJWK,
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { joseRefusal, TokenRefusal } from './refusal.js';

/** The algorithms a DPoP proof may be signed with (discovery: dpop_signing_alg_values_supported). */
export const DPOP_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const;

// How far a proof's iat may be from our clock (RFC 9449 §11.1: a short window, the jti replay
// cache holding every proof seen inside it).
const IAT_WINDOW_SECONDS = 60;

// Larger than any honest proof (a 4096-bit RSA key in the header is about 1.2 KB): what is
// longer is refused before anything is decoded.
const MAX_PROOF_LENGTH = 4096;

// RSA keys in proofs: a modulus of 2048 to 4096 bits and the exponent 65537. Verifying with a
// huge exponent costs milliseconds of CPU before the sender is known.
const RSA_MODULUS_BITS = { min: 2048, max: 4096 } as const;
const RSA_EXPONENT = 'AQAB';

/** A checked DPoP proof: the key it binds to (RFC 7638 thumbprint) and its one-time id. */
export interface DpopProof {
  readonly jkt: string;
  readonly jti: string;
  /**
   * When the proof stops being accepted (its iat window's last second has passed): its jti must
   * be remembered at least until then.
   */
  readonly expiresAt: Date;
}

/** The `ath` of an access token: base64url SHA-256 of its ASCII (RFC 9449 §4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/**
 * Checks a DPoP proof as RFC 9449 §4.3 says: a JWT of `typ` dpop+jwt signed by the public key in
 * its own header with an allowed algorithm; `htm` the request's method and `htu` its URL (no query
 * or fragment); `iat` within a minute of now; a `jti`; and, with an access token, `ath` its hash.
 * Everything that costs nothing (size, header, claims, the key's size) is checked before the
 * signature. The jti's replay check is the caller's (it is shared across processes).
 * A TokenRefusal (`invalid_dpop_proof`) names what is wrong.
 */
export async function checkDpopProof(
  proof: string,
  request: {
    readonly method: string;
    /** The URL the proof must name: the server's configured public origin and the path. */
    readonly url: string;
    readonly nowMs: number;
    readonly accessToken?: string;
  },
): Promise<DpopProof> {
  if (proof.length > MAX_PROOF_LENGTH) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      `the DPoP proof is longer than ${MAX_PROOF_LENGTH} characters`,
    );
  }
  const { header, payload } = decoded(proof);
  if (header.typ !== 'dpop+jwt')
    throw new TokenRefusal('invalid_dpop_proof', "the DPoP proof's typ must be dpop+jwt");
  if (!(DPOP_ALGORITHMS as readonly string[]).includes(header.alg ?? '')) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      `the DPoP proof's alg must be one of ${DPOP_ALGORITHMS.join(', ')}`,
    );
  }
  const now = Math.floor(request.nowMs / 1000);
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256) {
    throw new TokenRefusal('invalid_dpop_proof', 'the DPoP proof needs a jti');
  }
  if (payload.htm !== request.method) {
    throw new TokenRefusal('invalid_dpop_proof', `the DPoP proof's htm must be ${request.method}`);
  }
  if (typeof payload.htu !== 'string' || stripped(payload.htu) !== stripped(request.url)) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      `the DPoP proof's htu must be ${stripped(request.url)}`,
    );
  }
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - now) > IAT_WINDOW_SECONDS) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      'the DPoP proof is too old or from the future (iat)',
    );
  }
  if (request.accessToken !== undefined && payload.ath !== accessTokenHash(request.accessToken)) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      "the DPoP proof's ath does not match the access token",
    );
  }
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object')
    throw new TokenRefusal('invalid_dpop_proof', 'the DPoP proof needs a jwk');
  assertRsaBounds(jwk);
  try {
    await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGORITHMS],
      currentDate: new Date(request.nowMs),
    });
  } catch (error) {
    const refusal = joseRefusal(error);
    if (!refusal) throw error;
    throw new TokenRefusal('invalid_dpop_proof', `the DPoP proof: ${refusal.reason}`);
  }
  return {
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    jti: payload.jti,
    // Accepted while floor(now) <= iat + window: until the end of that second.
    expiresAt: new Date((payload.iat + IAT_WINDOW_SECONDS + 1) * 1000),
  };
}

function decoded(proof: string): { header: ProtectedHeaderParameters; payload: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(proof), payload: decodeJwt(proof) };
  } catch {
    throw new TokenRefusal('invalid_dpop_proof', 'the DPoP proof is not a JWT');
  }
}

/** Refuses an RSA key outside 2048-4096 bits or with an exponent other than 65537. */
function assertRsaBounds(jwk: JWK): void {
  if (jwk.kty !== 'RSA') return;
  if (jwk.e !== RSA_EXPONENT) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      'an RSA key in a DPoP proof must have the exponent 65537',
    );
  }
  const modulus = typeof jwk.n === 'string' ? Buffer.from(jwk.n, 'base64url') : Buffer.alloc(0);
  const leading = modulus.findIndex((byte) => byte !== 0);
  const bits =
    leading < 0 ? 0 : (modulus.length - leading - 1) * 8 + (32 - Math.clz32(modulus[leading]!));
  if (bits < RSA_MODULUS_BITS.min || bits > RSA_MODULUS_BITS.max) {
    throw new TokenRefusal(
      'invalid_dpop_proof',
      `an RSA key in a DPoP proof must have a ${RSA_MODULUS_BITS.min}-${RSA_MODULUS_BITS.max}-bit modulus`,
    );
  }
}

/** A URL as htu compares it: no query, no fragment (RFC 9449 §4.3 item 9). */
function stripped(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url;
  }
}
