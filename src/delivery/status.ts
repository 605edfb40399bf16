import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { sinkTargetSchema, type SinkTarget } from '../domain/events.js';
import { shownFailure } from '#outbound/transport.js';

/** A target as shown; a pre-sealing webhook's whole URL may carry a token: its origin only. */
const shownTarget = (target: SinkTarget): SinkTarget =>
  target.kind === 'webhook' && target.path_digest === undefined
    ? { kind: 'webhook', url: `${new URL(target.url).origin}/` }
    : target;

/** Where one sink stands, for the monitoring API, /metrics and the dashboard. */
export interface SinkStatus {
  readonly sinkId: string;
  readonly spaceId: string | null;
  readonly name: string;
  readonly kind: string;
  /** Where it delivers (a webhook's origin, a syslog host and port); never its secret or path. */
  readonly target: SinkTarget;
  readonly paused: boolean;
  readonly pauseReason: string | null;
  /** The client that made a stream through SSF 1.0 §8; null: an admin's or operator's sink. */
  readonly receiver: string | null;
  readonly cursor: { readonly transactionId: string; readonly globalPosition: number };
  readonly delivered: number;
  readonly failures: number;
  /** Settled events of its space (every space, for an operator sink) not yet delivered. */
  readonly lagEvents: number;
  /** How long the oldest undelivered event has waited (0 when none). */
  readonly lagSeconds: number;
  /** The class of the last failure (`connect_failed`, `http_status_5xx`, …), never its detail. */
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
  readonly deliveredAt: Date | null;
}

/**
 * Sink statuses (one space's, one sink, or the operator's with `spaceId: null`), deleted left out.
 * Lag is the deliverer's last count, so a read never counts the log.
 */
export async function sinkStatuses(
  db: Kysely<Database>,
  options: {
    /** One space's sinks; null: the operator's; absent: every sink (`spaces`: every space's). */
    readonly spaceId?: string | null;
    readonly spaces?: boolean;
    readonly sinkId?: string;
  } = {},
): Promise<SinkStatus[]> {
  const { spaceId, sinkId } = options;
  const { rows } = await sql<{
    sink_id: string;
    space_id: string | null;
    name: string;
    kind: string;
    target: unknown;
    paused: boolean;
    pause_reason: string | null;
    receiver_client_id: string | null;
    transaction_id: string;
    global_position: string;
    delivered: string;
    failures: string;
    last_error: string | null;
    last_error_at: Date | null;
    delivered_at: Date | null;
    lag_events: number;
    lag_oldest_at: Date | null;
  }>`
    SELECT s.sink_id, s.space_id, s.name, s.target->>'kind' AS kind, s.target, s.paused, s.pause_reason,
           s.receiver_client_id, c.transaction_id::text AS transaction_id, c.global_position, c.delivered, c.failures,
           c.last_error, c.last_error_at, c.delivered_at, c.lag_events, c.lag_oldest_at
    FROM audit_sinks s JOIN audit_sink_cursors c USING (sink_id)
    WHERE s.deleted_at IS NULL
      AND ${spaceId === undefined ? sql`true` : spaceId === null ? sql`s.space_id IS NULL` : sql`s.space_id = ${spaceId}`}
      AND ${sinkId === undefined ? sql`true` : sql`s.sink_id = ${sinkId}`}
      AND ${options.spaces === true ? sql`s.space_id IS NOT NULL` : sql`true`}
    ORDER BY s.sink_id`.execute(db);
  const now = Date.now();
  return rows.map((row) => ({
    sinkId: row.sink_id,
    spaceId: row.space_id,
    name: row.name,
    kind: row.kind,
    target: shownTarget(sinkTargetSchema.parse(row.target)),
    paused: row.paused,
    pauseReason: row.pause_reason,
    receiver: row.receiver_client_id,
    cursor: { transactionId: row.transaction_id, globalPosition: Number(row.global_position) },
    delivered: Number(row.delivered),
    failures: Number(row.failures),
    lagEvents: row.lag_events,
    lagSeconds: row.lag_oldest_at
      ? Math.max(0, Math.round((now - row.lag_oldest_at.getTime()) / 1000))
      : 0,
    lastError: shownFailure(row.last_error),
    lastErrorAt: row.last_error_at,
    deliveredAt: row.delivered_at,
  }));
}

/** /metrics' statuses: the operator's read first, so their gauges survive a failed read of spaces'. */
export async function scrapedSinkStatuses(
  db: Kysely<Database>,
  onSpacesFailed: (error: unknown) => void,
): Promise<SinkStatus[]> {
  const operator = await sinkStatuses(db, { spaceId: null });
  const spaces = await sinkStatuses(db, { spaces: true }).catch((error: unknown) => {
    onSpacesFailed(error);
    return [];
  });
  return [...operator, ...spaces];
}

/** The streams (not deleted) a receiver made in its space (SSF 1.0 §8.1.1.2's list). */
export async function receiverStreamIds(
  db: Kysely<Database>,
  receiver: { readonly spaceId: string; readonly clientId: string },
): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_sinks')
    .select('sink_id')
    .where('space_id', '=', receiver.spaceId)
    .where('receiver_client_id', '=', receiver.clientId)
    .where('deleted_at', 'is', null)
    .orderBy('sink_id')
    .execute();
  return rows.map((row) => row.sink_id);
}
