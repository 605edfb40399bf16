import {
  traceparentOf,
  type OutboundEvent,
  type Sender,
  type TraceContext,
} from './outbound-event.js';

/** The media type of a batch of CloudEvents in JSON (CloudEvents 1.0, JSON format §4). */
export const CLOUDEVENTS_BATCH = 'application/cloudevents-batch+json';

/** One event of the log as a CloudEvent 1.0 (structured JSON). */
export interface AuditCloudEvent {
  readonly specversion: '1.0';
  /** The event's own id: the same on every delivery, so receivers deduplicate on it. */
  readonly id: string;
  /** The issuer and the space: `<issuer>/spaces/<space>`. */
  readonly source: string;
  readonly type: string;
  readonly subject: string;
  readonly time: string;
  readonly datacontenttype: 'application/json';
  /** Where it stands in the log, for receivers that check order. */
  readonly sequence: string;
  readonly data: Readonly<Record<string, unknown>>;
  /**
   * The CloudEvents distributed-tracing extension: the W3C trace context of the request that
   * appended the event (its append's span), when that request was sampled.
   */
  readonly traceparent?: string;
}

/**
 * The event as a CloudEvent, as the caller gave it (in its full form, redacted: what may leave);
 * its type `com.<app>.<type>`.
 */
export function toCloudEvent(
  event: OutboundEvent,
  sender: Sender,
  trace?: TraceContext,
): AuditCloudEvent {
  return {
    specversion: '1.0',
    id: event.eventId,
    source: `${sender.issuer.replace(/\/+$/, '')}/spaces/${encodeURIComponent(event.spaceId)}`,
    type: `com.${sender.app}.${event.type}`,
    subject: event.streamId,
    time: event.recordedAt.toISOString(),
    datacontenttype: 'application/json',
    sequence: String(event.globalPosition),
    data: {
      global_position: event.globalPosition,
      event_id: event.eventId,
      event_type: event.type,
      space_id: event.spaceId,
      stream_id: event.streamId,
      stream_position: event.streamPosition,
      recorded_at: event.recordedAt.toISOString(),
      data: event.data,
      metadata: event.metadata,
    },
    ...(trace ? { traceparent: traceparentOf(trace) } : {}),
  };
}
