import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, jwtVerify, type JWK } from 'jose';
import { InvalidDpopProofError } from '../errors/errors.js';

/** The algorithms a DPoP proof may be signed with (discovery: dpop_signing_alg_values_supported). */
export const DPOP_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const;

// How far a proof's iat may be from our clock (RFC 9449 §11.1: a short window, the jti replay
// cache holding every proof seen inside it).
const IAT_WINDOW_SECONDS = 60;

/** A checked DPoP proof: the key it binds to (RFC 7638 thumbprint) and its one-time id. */
export interface DpopProof {
  readonly jkt: string;
  readonly jti: string;
  /** Until when its jti must be remembered. */
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
 * The jti's replay check is the caller's (it is shared across processes). InvalidDpopProofError
 * names what is wrong.
 */
export async function checkDpopProof(
  proof: string,
  request: {
    readonly method: string;
    /** The URLs this request may be known by (the public one, the one connected to). */
    readonly urls: readonly string[];
    readonly nowMs: number;
    readonly accessToken?: string;
  },
): Promise<DpopProof> {
  let verified;
  try {
    verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGORITHMS],
      currentDate: new Date(request.nowMs),
    });
  } catch (error) {
    throw new InvalidDpopProofError(`the DPoP proof does not verify (${(error as Error).message})`);
  }
  const { payload, protectedHeader } = verified;
  const now = Math.floor(request.nowMs / 1000);
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256) {
    throw new InvalidDpopProofError('the DPoP proof needs a jti');
  }
  if (payload.htm !== request.method) {
    throw new InvalidDpopProofError(`the DPoP proof's htm must be ${request.method}`);
  }
  if (
    typeof payload.htu !== 'string' ||
    !request.urls.some((url) => stripped(url) === stripped(payload.htu as string))
  ) {
    throw new InvalidDpopProofError(`the DPoP proof's htu must be ${stripped(request.urls[0]!)}`);
  }
  if (typeof payload.iat !== 'number' || Math.abs(payload.iat - now) > IAT_WINDOW_SECONDS) {
    throw new InvalidDpopProofError('the DPoP proof is too old or from the future (iat)');
  }
  if (request.accessToken !== undefined && payload.ath !== accessTokenHash(request.accessToken)) {
    throw new InvalidDpopProofError("the DPoP proof's ath does not match the access token");
  }
  return {
    jkt: await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256'),
    jti: payload.jti,
    expiresAt: new Date((payload.iat + IAT_WINDOW_SECONDS) * 1000),
  };
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
