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
// Transparency-log checks for reviewers' scripts and resource servers: RFC 9162 proofs and C2SP
// signed checkpoints, verified offline with nothing but the proof, a checkpoint and a public key.
export {
  EMPTY_ROOT,
  leafHash,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
} from '#audit-log/transparency/merkle.js';
export { parseCheckpointText, type Checkpoint } from '#audit-log/transparency/checkpoint.js';
export {
  openNote,
  parseNote,
  parseVerifierKey,
  type NoteVerifier,
} from '#audit-log/transparency/signed-note.js';
