import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { auditDetails } from './audit.js';
import { tracesOf } from '#event-log/event-traces.js';

/** Filters of an audit query; every one is optional but the space. */
export interface AuditFilter {
  readonly spaceId: string;
  readonly clientId?: string;
  readonly tokenKind?: 'private' | 'public';
  readonly eventType?: string;
  readonly customerId?: string;
  readonly segmentId?: string;
  /** Issuances granting this scope, and credential events naming it among their scopes. */
  readonly scope?: string;
  /** Public tokens whose actor chain names this client, or whose `may_act` allows it. */
  readonly agent?: string;
  readonly from?: Date;
  readonly to?: Date;
  /** Resume strictly after this log position (the cursor): before it when `newestFirst`. */
  readonly afterPosition?: number;
  /** Newest first (a dashboard's recent trail); oldest first otherwise. */
  readonly newestFirst?: boolean;
  readonly limit: number;
}

/** One audit entry as the API returns it. */
export interface AuditEntry {
  readonly position: number;
  readonly event_type: string;
  /** Null for events about the service itself (signing keys). */
  readonly client_id: string | null;
  readonly token_kind: string | null;
  readonly audience: string | null;
  readonly customer_id: string | null;
  readonly segment_id: string | null;
  readonly jti: string | null;
  readonly parent_jti: string | null;
  readonly expires_at: string | null;
  readonly recorded_at: string;
  readonly actor: string | null;
  readonly request_id: string | null;
  readonly client_ip: string | null;
  readonly user_agent: string | null;
  readonly details: unknown;
  /** The trace of the request that made it (W3C ids in hex), when it was traced and sampled. */
  readonly trace_id: string | null;
  readonly span_id: string | null;
}

/** A page of the audit trail in log-position order, and where to resume when there may be more. */
export async function queryAudit(
  db: Kysely<Database>,
  filter: AuditFilter,
): Promise<{ readonly entries: readonly AuditEntry[]; readonly nextAfter: number | null }> {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where('space_id', '=', filter.spaceId)
    .orderBy('global_position', filter.newestFirst ? 'desc' : 'asc')
    .limit(filter.limit + 1);
  // The log's indexes key a client and a customer by their hash (migration 040): name it.
  if (filter.clientId) {
    query = query
      .where(sql<number>`hashtext(client_id)`, '=', sql<number>`hashtext(${filter.clientId})`)
      .where('client_id', '=', filter.clientId);
  }
  if (filter.tokenKind) query = query.where('token_kind', '=', filter.tokenKind);
  if (filter.eventType) query = query.where('event_type', '=', filter.eventType);
  if (filter.customerId) {
    query = query
      .where(
        sql<number>`hashtext(space_id || ' ' || customer_id)`,
        '=',
        sql<number>`hashtext(${`${filter.spaceId} ${filter.customerId}`})`,
      )
      .where('customer_id', '=', filter.customerId);
  }
  if (filter.segmentId) query = query.where('segment_id', '=', filter.segmentId);
  if (filter.scope) {
    // A word of the space-delimited `scope`, or an element of a credential's `scopes`.
    query = query.where(
      sql<boolean>`(position(${` ${filter.scope} `} in ' ' || (event_data->>'scope') || ' ') > 0
        OR jsonb_exists(event_data->'scopes', ${filter.scope}))`,
    );
  }
  if (filter.agent) {
    // Only public tokens name actors: the type narrows the read to them before the JSON is read.
    query = query.where('event_type', '=', 'public-token-issued').where(
      sql<boolean>`(jsonb_exists(event_data->'actors', ${filter.agent})
          OR event_data->>'may_act' = ${filter.agent})`,
    );
  }
  if (filter.from) query = query.where('recorded_at', '>=', filter.from);
  if (filter.to) query = query.where('recorded_at', '<', filter.to);
  if (filter.afterPosition !== undefined) {
    query = query.where('global_position', filter.newestFirst ? '<' : '>', filter.afterPosition);
  }
  const rows = await query.execute();
  const page = rows.slice(0, filter.limit);
  // Beside the log, outside what its leaves cover: one probe per entry, none with tracing off.
  const traces = await tracesOf(
    db,
    page.map((row) => row.global_position),
  );
  return {
    entries: page.map((row) => ({
      position: row.global_position,
      event_type: row.event_type,
      client_id: row.client_id,
      token_kind: row.token_kind,
      audience: row.audience,
      customer_id: row.customer_id,
      segment_id: row.segment_id,
      jti: row.jti,
      parent_jti: row.parent_jti,
      expires_at: row.expires_at?.toISOString() ?? null,
      recorded_at: row.recorded_at.toISOString(),
      actor: row.actor,
      request_id: row.request_id,
      client_ip: row.client_ip,
      user_agent: row.user_agent,
      details: auditDetails(row.event_type, row.event_data),
      trace_id: traces.get(Number(row.global_position))?.traceId ?? null,
      span_id: traces.get(Number(row.global_position))?.spanId ?? null,
    })),
    nextAfter: rows.length > filter.limit ? page.at(-1)!.global_position : null,
  };
}
