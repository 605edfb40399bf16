import type {
  EventSealsTable,
  SpaceSealsTable,
  MerkleNodesTable,
  MerkleCheckpointsTable,
  LogTreeSizesTable,
  LogSealsTable,
  SpaceRangesTable,
  MerkleCosignaturesTable,
  ArchivedRangesTable,
  ArchivedBlocksTable,
  ArchivedLeafKeysTable,
  EventPartitionsTable,
  AuditCheckpointsTable,
} from './evidence-schema.js';
import type { ColumnType, Generated } from 'kysely';
import type { EventLogTables } from '#event-log/table.js';
import type { AuditSinkCursorsTable, AuditSinksTable } from './sink-schema.js';
import type { MetadataClientDomainsTable, TrustedIssuersTable } from './issuer-schema.js';

/**
 * Row types of every table, as Kysely sees them. One place, mirroring migrations/; the log's own
 * (`events`) is the event-log package's.
 */
export interface CredentialsTable {
  client_id: string;
  space_id: string;
  name: string;
  description: string;
  secret_hash: Buffer | null;
  /** A secretless client's public keys (migration 014). */
  jwks: ColumnType<unknown, string | null, string | null>;
  require_dpop: boolean;
  status: 'active' | 'revoked';
  stream_version: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  previous_secret_hash: Buffer | null;
  previous_secret_expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  rate_limit_per_minute: number | null;
  scopes: string[] | null;
  scopes_narrowed_at: Date | null;
  redirect_uris: string[] | null;
}

export interface TokenRevocationsTable {
  jti: string;
  space_id: string;
  client_id: string;
  token_kind: 'private' | 'public';
  expires_at: Date;
  revoked_at: Date;
}

export interface CredentialUsageTable {
  space_id: string;
  client_id: string;
  last_used_at: Date;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: ColumnType<Record<string, unknown>, string, string>;
  public_jwk: ColumnType<Record<string, unknown>, string, never>;
  created_at: Generated<Date>;
  activates_at: Date;
  retired_at: Date | null;
  /** The space whose own ring holds the key (issue 42); null for the shared ring. */
  space_id: ColumnType<string | null, string | null | undefined, never>;
}

export interface ProjectionCheckpointsTable {
  projection: string;
  transaction_id: string;
  global_position: number;
  updated_at: Generated<Date>;
}

export interface ClientScopeRateTable {
  space_id: string;
  client_id: string;
  scope: string;
  bucket_start: Date;
  private_tokens: number;
  public_tokens: number;
}

/** The audit trail as read: a view over the log itself (migration 021). */
export interface AuditLogTable {
  space_id: string;
  global_position: number;
  transaction_id: string;
  client_id: string | null;
  event_type: string;
  token_kind: 'private' | 'public' | null;
  customer_id: string | null;
  segment_id: string | null;
  parent_jti: string | null;
  recorded_at: Date;
  audience: string | null;
  jti: string | null;
  expires_at: Date | null;
  actor: string | null;
  request_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  /** The event's data, from which an entry's details are picked (never a secret). */
  event_data: unknown;
}

export interface ClientRateTable {
  space_id: string;
  client_id: string;
  bucket_start: Date;
  private_tokens: number;
  public_tokens: number;
  rejected_authentications: number;
}

/** A sealed response kept for retries with the same Idempotency-Key (migration 011). */
export interface IdempotentResponsesTable {
  space_id: string;
  idempotency_key_hash: string;
  request_hash: string;
  sealed_response: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  expires_at: Date;
}

/** Ids that may be used once (assertion and DPoP proof jtis), until they expire (015). */
export interface UsedOnceIdsTable {
  space_id: string;
  holder: string;
  id_hash: string;
  expires_at: Date;
}

/** The whole database, for `Kysely<Database>`: the log's tables and the service's. */
export interface Database extends EventLogTables {
  event_seals: EventSealsTable;
  token_revocations: TokenRevocationsTable;
  space_seals: SpaceSealsTable;
  merkle_nodes: MerkleNodesTable;
  merkle_checkpoints: MerkleCheckpointsTable;
  merkle_cosignatures: MerkleCosignaturesTable;
  log_tree_sizes: LogTreeSizesTable;
  log_seals: LogSealsTable;
  space_ranges: SpaceRangesTable;
  archived_ranges: ArchivedRangesTable;
  archived_blocks: ArchivedBlocksTable;
  archived_leaf_keys: ArchivedLeafKeysTable;
  event_partitions: EventPartitionsTable;
  audit_checkpoints: AuditCheckpointsTable;
  credential_usage: CredentialUsageTable;
  credentials: CredentialsTable;
  signing_keys: SigningKeysTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  audit_log: AuditLogTable;
  client_rate_minute: ClientRateTable;
  client_rate_hour: ClientRateTable;
  client_scope_rate_hour: ClientScopeRateTable;
  idempotent_responses: IdempotentResponsesTable;
  used_once_ids: UsedOnceIdsTable;
  audit_sinks: AuditSinksTable;
  audit_sink_cursors: AuditSinkCursorsTable;
  trusted_issuers: TrustedIssuersTable;
  metadata_client_domains: MetadataClientDomainsTable;
  stream_digests: { space_id: string; stream_id: string; digest: Buffer; expires_at: Date };
  ended_switch_overs: { space_id: string; ended_at: Date };
  authorization_states: {
    space_id: string;
    key: string;
    state: unknown;
    version: number;
    expires_at: Date | null;
  };
  /** A token's place in its space's status list (issue 65), with its issuance event's data. */
  status_list_entries: {
    space_id: string;
    list_id: string;
    idx: number;
    stream_id: string;
    event_type: string;
    data: unknown;
    expires_at: Date;
  };
}
