import type { ColumnType, Generated } from 'kysely';

/* The evidence tables: seals, Merkle trees and heads, archives, partitions. */

/** A range of the retired global hash chain: format-1 evidence, read only. */
export interface EventSealsTable extends Omit<LogSealsTable, 'tree_size'> {
  previous_hash: Buffer;
  hash: Buffer;
}

/** A space's share of a retired hash-chain range: format-1 evidence, read only. */
export interface SpaceSealsTable extends SpaceRangesTable {
  previous_hash: Buffer;
  hash: Buffer;
}

/** A sealed range of the log: where it ends, how many events, the log tree's size after it. */
export interface LogSealsTable {
  seal_number: number;
  event_count: number;
  last_transaction_id: string;
  last_position: number;
  /** Where the partition holding the seal's events starts. */
  partition_start: ColumnType<Date, Date | string | undefined, never>;
  tree_size: number;
  sealed_at: Generated<Date>;
}

/** One space's share of a sealed range: its tree's leaves of it (migration 034). */
export interface SpaceRangesTable {
  space_id: string;
  last_sequence: number;
  first_sequence: number;
  seal_number: number;
  min_position: number;
  max_position: number;
  first_recorded_at: Date;
  last_recorded_at: Date;
  sealed_at: Generated<Date>;
}

/** A perfect subtree of 256 leaves or more of a space's Merkle tree (migration 023). */
export interface MerkleNodesTable {
  space_id: string;
  level: number;
  index: number;
  hash: Buffer;
}

/** A signed tree head: a C2SP checkpoint note (migration 023). */
export interface MerkleCheckpointsTable {
  space_id: string;
  tree_size: number;
  note: string;
  signed_at: Generated<Date>;
}

/** The log tree's size once a global seal is in it (migration 024). */
export interface LogTreeSizesTable {
  seal_number: number;
  tree_size: number;
}

/** A witness's cosignature line on a signed tree head (migration 024). */
export interface MerkleCosignaturesTable {
  space_id: string;
  tree_size: number;
  witness: string;
  line: string;
  received_at: Generated<Date>;
}

/** One space's events of an archived partition, and the file they are in (migration 020). */
export interface ArchivedRangesTable {
  space_id: string;
  partition_name: string;
  starts_at: Date;
  ends_at: Date;
  first_sequence: number | null;
  last_sequence: number | null;
  event_count: number;
  file: string;
  sha256: string;
  archived_at: Generated<Date>;
}

/** One gzip member of an archive file: a space's events of at most one tile (migration 027). */
export interface ArchivedBlocksTable {
  space_id: string;
  first_sequence: number;
  last_sequence: number;
  partition_name: string;
  file: string;
  byte_offset: number;
  byte_length: number;
  sha256: string;
}

/** Which archived sequence of a space an event id or a stream's first event is (migration 027). */
export interface ArchivedLeafKeysTable {
  space_id: string;
  key: Buffer;
  sequence: number;
}

/** A live partition of the log and the time it covers (migration 019). */
export interface EventPartitionsTable {
  partition_name: string;
  starts_at: Date;
  ends_at: Date;
  created_at: Generated<Date>;
}

export interface AuditCheckpointsTable {
  space_id: string;
  checkpoint_number: number;
  sequence: number;
  head_hash: Buffer;
  created_at: Generated<Date>;
  jws: string;
}
