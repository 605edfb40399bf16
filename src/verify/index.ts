/**
 * `token-authority/verify`: what a resource server (the Storefront API) needs to accept our
 * tokens — signature and claims against the JWKS, the token kind, revocation, DPoP binding —
 * with thin adapters for Koa, Express and fetch-style Requests.
 */
export { createVerifier, VerifyError } from './verifier.js';
export type { VerifiableRequest, VerifiedToken, Verifier, VerifierOptions } from './verifier.js';
export {
  expressVerifier,
  fromFetchRequest,
  koaVerifier,
  refusalResponse,
  verifyFetchRequest,
} from './adapters.js';
