import type { OutboundEvent, TraceContext } from './outbound-event.js';

/** A point in a log's commit-safe order: the committing transaction's id, then the position. */
export interface LogPosition {
  readonly transactionId: string;
  readonly globalPosition: number;
}

/**
 * One batch of a sink's delivery: consecutive events of its log, in log order. `Event` is what the
 * caller holds; the transports of this package send {@link OutboundEvent}s, as they leave.
 */
export interface DeliveryBatch<Event = OutboundEvent> {
  readonly sinkId: string;
  readonly events: readonly Event[];
  /** The range of the log it carries: after `from`, through `through` (its delivery id). */
  readonly from: LogPosition;
  readonly through: LogPosition;
  /** The traces of the requests that appended its events, by log position (those that had one). */
  readonly traces?: ReadonlyMap<number, TraceContext>;
}

/**
 * How a batch reaches a sink. `send` resolves only once the sink acknowledged the whole batch
 * (a webhook: a 2xx; syslog: written, flushed, the connection still healthy) and throws
 * otherwise, within its own timeout: the cursor moves only after it resolved.
 */
export interface Transport<Event = OutboundEvent> {
  send(batch: DeliveryBatch<Event>): Promise<void>;
  /** A cheap check that the sink answers again (a paused sink's probe). */
  probe(): Promise<void>;
  close(): void;
}

/**
 * What a space's admins and auditors are told of a failed delivery (`last_error`, `sink-paused`):
 * a coarse class, stable across versions. The detail stays in the operator's log: a tenant told
 * "connection refused" apart from "parse error" had a port scanner of the deliverer's network.
 * Any failure before an answer (refused, reset, not HTTP, not TLS) is `connect_failed`.
 */
export const DELIVERY_FAILURES = [
  'refused_target',
  'connect_failed',
  'tls_failed',
  'timeout',
  'connection_lost',
  'http_status_3xx',
  'http_status_4xx',
  'http_status_5xx',
  'http_status_other',
  'secret_unavailable',
] as const;
export type DeliveryFailure = (typeof DELIVERY_FAILURES)[number];

/**
 * A stored last error as shown: its class. A row written before errors were classed (issue 51,
 * item 5) may hold the detail, which is the operator's alone: shown as `delivery_failed`.
 */
export const shownFailure = (stored: string | null): string | null =>
  stored === null || (DELIVERY_FAILURES as readonly string[]).includes(stored)
    ? stored
    : 'delivery_failed';

/** A failed delivery: its class (what the space sees) and a message for the operator's log. */
export class DeliveryError extends Error {
  readonly failure: DeliveryFailure;
  constructor(failure: DeliveryFailure, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryError';
    this.failure = failure;
  }
}

/** A connection the sink target rules refused (target-rules.ts), at lookup or for a literal. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** Certificate problems: the peer spoke TLS, and its certificate is not one we trust. */
const CERTIFICATE_ERROR = /CERT|UNABLE_TO_VERIFY|SELF_SIGNED|ALTNAME|UNABLE_TO_GET_ISSUER/;

/**
 * The class of an error met before any answer: a refused target, a timeout, a certificate the
 * receiver showed; everything else (refused, reset, a port that speaks neither HTTP nor TLS, a
 * name that does not resolve) is `connect_failed`, so that none of them tells one from another.
 */
export function connectFailure(error: unknown): DeliveryFailure {
  if (error instanceof DeliveryError) return error.failure;
  if (error instanceof TargetRefusedError) return 'refused_target';
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CERTIFICATE_ERROR.test(code)) return 'tls_failed';
  return 'connect_failed';
}

/** The class of a receiver's non-2xx answer. */
export function statusFailure(status: number): DeliveryFailure {
  if (status >= 300 && status <= 399) return 'http_status_3xx';
  if (status >= 400 && status <= 499) return 'http_status_4xx';
  if (status >= 500 && status <= 599) return 'http_status_5xx';
  return 'http_status_other';
}
