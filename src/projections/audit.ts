import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AuditLogTable } from '../db/schema.js';
import { eventMetadataSchema, parseEventData } from '../domain/events.js';
import type { RecordedEvent } from '../event-store/types.js';
import type { Projection } from './projection.js';

type AuditRow = Omit<AuditLogTable, 'details'> & { details: string };

/** Maps one event to its audit row; undefined for events the audit does not cover. */
export function auditRowFor(event: RecordedEvent): AuditRow | undefined {
  const meta = eventMetadataSchema.partial().parse(event.metadata);
  const base = {
    space_id: event.spaceId,
    global_position: event.globalPosition,
    transaction_id: event.transactionId,
    event_type: event.type,
    recorded_at: event.recordedAt,
    actor: meta.actor ?? null,
    request_id: meta.request_id ?? null,
    client_ip: meta.client_ip ?? null,
    user_agent: meta.user_agent ?? null,
    token_kind: null,
    audience: null,
    customer_id: null,
    segment_id: null,
    jti: null,
    parent_jti: null,
    expires_at: null,
  } as const;
  switch (event.type) {
    case 'credential-created': {
      const data = parseEventData('credential-created', event.data);
      return {
        ...base,
        client_id: data.client_id,
        details: JSON.stringify({
          name: data.name,
          description: data.description,
          created_by: data.created_by,
          login_issuer: data.login_issuer,
        }),
      };
    }
    case 'private-token-issued': {
      const data = parseEventData('private-token-issued', event.data);
      return {
        ...base,
        client_id: data.client_id,
        token_kind: 'private',
        audience: data.audience,
        jti: data.jti,
        expires_at: new Date(data.expires_at),
        details: '{}',
      };
    }
    case 'public-token-issued': {
      const data = parseEventData('public-token-issued', event.data);
      return {
        ...base,
        client_id: data.client_id,
        token_kind: 'public',
        audience: data.audience,
        jti: data.jti,
        parent_jti: data.parent_jti,
        customer_id: data.customer_id,
        segment_id: data.segment_id,
        expires_at: new Date(data.expires_at),
        details: '{}',
      };
    }
    case 'client-authentication-failed': {
      const data = parseEventData('client-authentication-failed', event.data);
      return {
        ...base,
        client_id: data.client_id,
        details: JSON.stringify({ reason: data.reason }),
      };
    }
    default:
      return undefined;
  }
}

/** Per-client audit trail: every credential event, issued token and rejected authentication. */
export const auditProjection: Projection = {
  name: 'audit',
  async apply(trx: Transaction<Database>, events) {
    const rows = events.map(auditRowFor).filter((row): row is AuditRow => row !== undefined);
    for (let i = 0; i < rows.length; i += 1000) {
      await trx
        .insertInto('audit_log')
        .values(rows.slice(i, i + 1000))
        .execute();
    }
  },
  async reset(trx) {
    await trx.deleteFrom('audit_log').execute();
  },
};
