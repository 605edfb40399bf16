/**
 * token-authority's audit log as a library, usable alone by a reviewer or another service: an
 * event's leaf (given the log's redaction), RFC 8785 canonical JSON, RFC 9162 Merkle trees and
 * proofs, C2SP checkpoints and Ed25519 signed notes, the tlog-witness protocol, the export line
 * format and the offline checks, and the algorithms a log runs over its own storage (tree growth
 * and tiles, head signing, the witness client, exports and archive files) behind small interfaces
 * it implements (NodeStore, HeadStore, WitnessLedger, …). Nothing here reads a database; the
 * witness program is `witness/main.ts`.
 */
export * from './recorded-event.js';
export * from './redaction.js';
export * from './canonical-json.js';
export * from './event-leaf.js';
export * from './transparency/merkle.js';
export * from './transparency/frontier.js';
export * from './transparency/tree-head.js';
export * from './tree/tree-source.js';
export * from './tree/tiled-tree.js';
export * from './tree/tree-growth.js';
export * from './tree/head-signing.js';
export * from './tree/space-shares.js';
export * from './transparency/checkpoint.js';
export * from './transparency/signed-note.js';
export * from './transparency/cosignature.js';
export * from './transparency/witness.js';
export * from './transparency/witness-keys.js';
export * from './transparency/ml-dsa.js';
export * from './transparency/tlog-proof.js';
export * from './transparency/tlog-policy.js';
export * from './transparency/tile-path.js';
export * from './witness/answer.js';
export * from './witness/endpoints.js';
export * from './witness/client.js';
export * from './export-lines.js';
export * from './archive-folder.js';
export * from './space-export.js';
export * from './archive/archived-tree.js';
export * from './archive/write-partition.js';
export * from './archive/within-one-partition.js';
export * from './check/tree-export.js';
export * from './check/tree-export-heads.js';
export * from './check/chain-export.js';
export * from './check/archive.js';
export * from './check/log-tree.js';
export * from './check/log-heads.js';
export * from './check/sealed-ranges.js';
export * from './check/jws-checkpoint.js';
export * from './check/export.js';
export * from './check/proof-answer.js';
export * from './check/tlog-proof-check.js';
export * from './head-files.js';
