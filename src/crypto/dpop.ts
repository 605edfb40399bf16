import { checkDpopProof as checkProof, type DpopProof } from '#verifier/dpop.js';
import { rethrowAsServiceError } from './access-tokens.js';

// RFC 9449's proof check is the verifier kit's (packages/verifier), one version for both.
export { DPOP_ALGORITHMS, accessTokenHash, type DpopProof } from '#verifier/dpop.js';

/** The kit's DPoP proof check as InvalidDpopProofError; the jti replay is the caller's. */
export function checkDpopProof(...args: Parameters<typeof checkProof>): Promise<DpopProof> {
  return checkProof(...args).catch(rethrowAsServiceError);
}
