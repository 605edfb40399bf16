import { sql, type RawBuilder } from 'kysely';
import { EVENT_TYPES, type EventData, type EventType } from '../domain/events.js';
import { inRange } from '../event-store/log-range.js';
import type { Projection } from './projection.js';

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
  'audit-log-read': { tokenKind: null, details: ['kind', 'query', 'rows_returned', 'complete'] },
  'events-archived': {
    tokenKind: null,
    details: ['partition', 'starts_at', 'ends_at', 'events', 'files', 'manifest_sha256'],
  },
};

const caseByType = (branch: (type: EventType) => RawBuilder<unknown> | null, otherwise: string) => {
  const whens = EVENT_TYPES.flatMap((type) => {
    const value = branch(type);
    return value ? [sql`WHEN ${sql.lit(type)} THEN ${value}`] : [];
  });
  return whens.length === 0
    ? sql.raw(otherwise)
    : sql`CASE e.event_type ${sql.join(whens, sql` `)} ELSE ${sql.raw(otherwise)} END`;
};

const tokenKindSql = caseByType((type) => {
  const kind = AUDIT_SHAPES[type].tokenKind;
  return kind ? sql.lit(kind) : null;
}, 'NULL');

/** An entry's details: the fields of its event's data its type's audit shape names. */
export function auditDetails(eventType: string, data: unknown): Record<string, unknown> {
  const fields: readonly string[] = AUDIT_SHAPES[eventType as EventType]?.details ?? [];
  const source = (data ?? {}) as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field, source[field] ?? null]));
}

/**
 * Per-client audit trail: every event of every registered type, one row per event in
 * `audit_index`, holding only what queries filter and join on; who, from where and the details are
 * read from the event itself through the `audit_log` view. Event payloads were validated against their schemas
 * (src/domain/events.ts) when appended, so they are read as stored.
 */
export const auditProjection: Projection = {
  name: 'audit',
  async applyRange(trx, range) {
    await sql`
      INSERT INTO audit_index (space_id, global_position, transaction_id, client_id, event_type,
        token_kind, customer_id, segment_id, parent_jti, recorded_at)
      SELECT e.space_id, e.global_position, e.transaction_id, e.data->>'client_id', e.event_type,
        ${tokenKindSql}, e.data->>'customer_id', e.data->>'segment_id', e.data->>'parent_jti',
        e.recorded_at
      FROM events e
      WHERE ${inRange(range, 'e')}
        AND e.event_type = ANY(${[...EVENT_TYPES]}::text[])`.execute(trx);
  },
  async reset(trx) {
    await trx.deleteFrom('audit_index').execute();
  },
};
