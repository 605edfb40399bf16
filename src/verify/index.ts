/**
 * `token-authority/verify`, as users import it: the verifier kit (packages/verifier) and, beside
 * it, the audit log's transparency checks for reviewers' scripts and resource servers — RFC 9162
 * proofs and C2SP signed checkpoints, verified offline with nothing but the proof, a checkpoint
 * and a public key (packages/audit-log).
 */
export * from '#verifier/index.js';
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
