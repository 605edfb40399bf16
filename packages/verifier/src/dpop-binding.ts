import { checkDpopProof } from './dpop.js';
import { createReplayCache } from './replay-cache.js';
import { VerifyError } from './verify-error.js';
import type { VerifiableRequest } from './verifier-types.js';

/**
 * Holds a token to its DPoP binding (RFC 9449): a bound token (`cnf.jkt`) comes as
 * `DPoP <token>` with one proof by its key for this method and URL, carrying the token's `ath`,
 * each proof used once; an unbound token never comes as DPoP.
 */
export function createDpopBinding(options: {
  readonly replayCacheMaxEntries?: number;
  readonly now: () => number;
}) {
  const { now } = options;
  const replays = createReplayCache(options.replayCacheMaxEntries);
  return async function checkBinding(
    request: VerifiableRequest,
    scheme: 'Bearer' | 'DPoP',
    token: string,
    claims: { readonly cnf?: { readonly jkt: string } },
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
  };
}
