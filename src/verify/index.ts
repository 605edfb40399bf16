/** `token-authority/verify`: the verifier kit and the audit log's offline transparency checks. */
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
