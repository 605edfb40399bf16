/**
 * An event of a log as it leaves for a receiver: in its full form and already redacted by the
 * caller (this package never sees what must not leave). A service's own recorded event fits it as
 * long as it has these fields.
 */
export interface OutboundEvent {
  readonly globalPosition: number;
  readonly eventId: string;
  readonly type: string;
  readonly spaceId: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly recordedAt: Date;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The W3C trace context of the request that appended an event (its append's span). */
export interface TraceContext {
  /** 32 hex digits. */
  readonly traceId: string;
  /** 16 hex digits: the span the event was appended in. */
  readonly spanId: string;
}

/** The W3C `traceparent` (version 00, sampled) naming the span an event was appended in. */
export function traceparentOf(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-01`;
}

/**
 * Who sends: the issuer (a CloudEvent's source, the syslog host) and the application's name (the
 * CloudEvent type's prefix, the syslog APP-NAME, the webhook's user agent).
 */
export interface Sender {
  readonly issuer: string;
  readonly app: string;
}
