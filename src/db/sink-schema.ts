import type { ColumnType, Generated } from 'kysely';

/** A sink of the audit trail (migration 030): where it delivers, and whether it is paused. */
export interface AuditSinksTable {
  sink_id: string;
  /** null: an operator sink (AUDIT_SINKS), delivering every space. */
  space_id: string | null;
  name: string;
  target: ColumnType<unknown, string, string>;
  sealed_secret: ColumnType<unknown, string | null, string | null>;
  /** A webhook's path and query, sealed as its secret is (migration 036); never in an event. */
  sealed_path: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  paused: Generated<boolean>;
  pause_reason: string | null;
  paused_at: Date | null;
  /** When a space's admin deleted it (migration 038): the row stays, without its secrets. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A stream's receiver (migration 052): the client that made it through SSF 1.0 §8. */
  receiver_client_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its receiver last asked for a verification (migration 052). */
  verification_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Where a sink's delivery stands in the log (commit-safe order), written by the deliverer. */
export interface AuditSinkCursorsTable {
  sink_id: string;
  transaction_id: ColumnType<string, string | undefined, string>;
  global_position: ColumnType<number, number | undefined, number>;
  delivered: ColumnType<number, number | undefined, number>;
  delivered_recorded_at: Date | null;
  delivered_at: Date | null;
  failures: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  last_error_at: Date | null;
  /** The end of the batch in flight (migration 038): a batch sent again is the same range. */
  pending_transaction_id: ColumnType<string | null, string | null | undefined, string | null>;
  pending_global_position: ColumnType<number | null, number | null | undefined, number | null>;
  /** Lag as the deliverer last counted it (bounded), read by statuses instead of the log. */
  lag_events: ColumnType<number, number | undefined, number>;
  lag_oldest_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  lag_counted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A polled stream's SETs acknowledged past its cursor (migration 051): not sent again. */
  acked_ahead: ColumnType<string[], string[] | undefined, string[]>;
}
