/**
 * `token-authority/verify`: what a resource server (the Storefront API) needs to accept our
 * tokens — signature and claims against the JWKS, the token kind, revocation, DPoP binding, the
 * scopes and the delegation a route requires — with thin adapters for Koa, Express and
 * fetch-style Requests, and its RFC 9728 protected-resource metadata served by the same three.
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
export { nodeSignalHandler, signalResponse } from './signal-adapters.js';
export { SignalRefused, type PushedSignal, type SignalError } from './signals.js';
export {
  expressResourceMetadata,
  koaResourceMetadata,
  resourceMetadataHandler,
} from './metadata-adapters.js';
export {
  resourceMetadataUrl,
  type ProtectedResourceMetadata,
  type ResourceMetadata,
  type ResourceMetadataOptions,
} from './resource-metadata.js';
export {
  actorsOf,
  agentsIn,
  type DelegationRequirements,
  type DelegationRule,
} from './delegation-rule.js';
export type { ActorClaim } from './actor-claim.js';
