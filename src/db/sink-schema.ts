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
}
