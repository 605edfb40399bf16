import type { EventData, EventType } from '../domain/events.js';

/**
 * How one event type appears in the audit trail. Its token kind column is not here: it is the
 * one list of issuances' (`src/domain/token/issuances.ts`).
 */
interface AuditShape<Type extends EventType> {
  /** Fields of the event's data copied into `details` (never a secret or its hash). */
  readonly details: readonly (keyof EventData<Type> & string)[];
}

/**
 * Every event type's audit shape. Keyed on the registry: a new event type does not compile until
 * it says how it is audited. Columns common to all (client, audience, customer, segment, jti,
 * expiry) are read from the data when present.
 */
export const AUDIT_SHAPES: { readonly [Type in EventType]: AuditShape<Type> } = {
  'credential-created': {
    details: ['name', 'description', 'created_by', 'login_issuer', 'scopes'],
  },
  'private-token-issued': { details: ['scope'] },
  'public-token-issued': { details: ['scope'] },
  'client-authentication-failed': { details: ['reason'] },
  'credential-secret-rotated': {
    details: ['overlap_seconds', 'previous_secret_expires_at', 'rotated_by'],
  },
  'credential-revoked': { details: ['reason', 'revoked_by'] },
  // The keys themselves are public and in the log; the trail names who changed them.
  'credential-keys-changed': { details: ['changed_by'] },
  'token-revoked': { details: ['token_kind', 'revoked_by'] },
  'signing-key-generated': { details: ['kid', 'alg', 'activates_at', 'reason'] },
  'signing-key-retired': { details: ['kid', 'retired_at', 'reason'] },
  'signing-keys-resealed': { details: ['kids', 'kek', 'reason'] },
  'credential-rate-limit-changed': {
    details: ['rate_limit_per_minute', 'changed_by'],
  },
  'credential-scopes-changed': { details: ['scopes', 'removed', 'changed_by'] },
  'client-authentication-failures-summarized': {
    details: [
      'window_start',
      'window_end',
      'failed',
      'refused_while_locked_out',
      'source_ips',
      'source_ip_count',
    ],
  },
  'access-refused': {
    details: ['reason', 'subject', 'operation', 'requested_space'],
  },
  'access-refusals-summarized': {
    details: [
      'reason',
      'subject',
      'window_start',
      'window_end',
      'refused',
      'refused_while_locked_out',
      'requested_spaces',
      'requested_space_count',
      'source_ips',
      'source_ip_count',
    ],
  },
  'credential-secret-replayed': {
    details: ['idempotency_key_sha256', 'replayed_to'],
  },
  'audit-log-read': { details: ['kind', 'query', 'rows_returned', 'complete'] },
  'events-archived': {
    details: ['partition', 'starts_at', 'ends_at', 'events', 'files', 'manifest_sha256'],
  },
  'sink-created': { details: ['sink_id', 'name', 'target'] },
  'sink-changed': { details: ['sink_id', 'name', 'target'] },
  'sink-paused': { details: ['sink_id', 'reason', 'attempts', 'last_error'] },
  'sink-resumed': { details: ['sink_id', 'reason'] },
  'sink-deleted': { details: ['sink_id', 'name'] },
};

/** An entry's details: the fields of its event's data its type's audit shape names. */
export function auditDetails(eventType: string, data: unknown): Record<string, unknown> {
  const fields: readonly string[] = AUDIT_SHAPES[eventType as EventType]?.details ?? [];
  const source = (data ?? {}) as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field, source[field] ?? null]));
}
