import type { EventData, EventType } from '../domain/events.js';

/** How one event type appears in the audit trail. */
interface AuditShape<Type extends EventType> {
  /** Token kind column: which access token the event issued, if any. */
  readonly tokenKind: 'private' | 'public' | null;
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
    tokenKind: null,
    details: ['name', 'description', 'created_by', 'login_issuer'],
  },
  'private-token-issued': { tokenKind: 'private', details: [] },
  'public-token-issued': { tokenKind: 'public', details: [] },
  'client-authentication-failed': { tokenKind: null, details: ['reason'] },
  'credential-secret-rotated': {
    tokenKind: null,
    details: ['overlap_seconds', 'previous_secret_expires_at', 'rotated_by'],
  },
  'credential-revoked': { tokenKind: null, details: ['reason', 'revoked_by'] },
  // The keys themselves are public and in the log; the trail names who changed them.
  'credential-keys-changed': { tokenKind: null, details: ['changed_by'] },
  'token-revoked': { tokenKind: null, details: ['token_kind', 'revoked_by'] },
  'signing-key-generated': { tokenKind: null, details: ['kid', 'alg', 'activates_at', 'reason'] },
  'signing-key-retired': { tokenKind: null, details: ['kid', 'retired_at', 'reason'] },
  'signing-keys-resealed': { tokenKind: null, details: ['kids', 'kek', 'reason'] },
  'credential-rate-limit-changed': {
    tokenKind: null,
    details: ['rate_limit_per_minute', 'changed_by'],
  },
  'client-authentication-failures-summarized': {
    tokenKind: null,
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
    tokenKind: null,
    details: ['reason', 'subject', 'operation', 'requested_space'],
  },
  'access-refusals-summarized': {
    tokenKind: null,
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
    tokenKind: null,
    details: ['idempotency_key_sha256', 'replayed_to'],
  },
  'audit-log-read': { tokenKind: null, details: ['kind', 'query', 'rows_returned', 'complete'] },
  'events-archived': {
    tokenKind: null,
    details: ['partition', 'starts_at', 'ends_at', 'events', 'files', 'manifest_sha256'],
  },
};

/** An entry's details: the fields of its event's data its type's audit shape names. */
export function auditDetails(eventType: string, data: unknown): Record<string, unknown> {
  const fields: readonly string[] = AUDIT_SHAPES[eventType as EventType]?.details ?? [];
  const source = (data ?? {}) as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field, source[field] ?? null]));
}
