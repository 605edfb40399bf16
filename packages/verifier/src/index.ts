/**
 * `token-authority/verify`: what a resource server (the Storefront API) needs to accept our
 * tokens — signature and claims against the JWKS, the token kind, revocation, DPoP binding, the
 * scopes a route requires — with thin adapters for Koa, Express and fetch-style Requests.
 */
export { createVerifier } from './verifier.js';
export type {
  RouteRequirements,
  VerifiableRequest,
  VerifiedToken,
  Verifier,
  VerifierOptions,
} from './verifier.js';
export { VerifyError, type ChallengeDetails, type TokenScheme } from './verify-error.js';
export {
  expressVerifier,
  fromFetchRequest,
  koaVerifier,
  refusalResponse,
  verifyFetchRequest,
} from './adapters.js';
