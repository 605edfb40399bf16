import { redactEvent } from '../audit-trail/redaction.js';
import { fullForm } from '../domain/stored-form.js';
import type { RecordedEvent } from '../event-store/types.js';
import { traceparentOf, type EventTrace } from '../event-store/event-traces.js';

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
  readonly data: Record<string, unknown>;
  /**
   * The CloudEvents distributed-tracing extension: the W3C trace context of the request that
   * appended the event (its append's span), when that request was sampled.
   */
  readonly traceparent?: string;
}

/**
 * The event as it leaves the service: in its full form, redacted exactly as the exports and the
 * live feed redact it (`redactEvent`: a secret hash becomes its digest), never as stored.
 */
export function toCloudEvent(
  stored: RecordedEvent,
  issuer: string,
  trace?: EventTrace,
): AuditCloudEvent {
  const event = fullForm(stored);
  const redacted = redactEvent(event);
  return {
    specversion: '1.0',
    id: event.eventId,
    source: `${issuer.replace(/\/+$/, '')}/spaces/${encodeURIComponent(event.spaceId)}`,
    type: `com.token-authority.${event.type}`,
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
      data: redacted.data,
      metadata: event.metadata,
    },
    ...(trace ? { traceparent: traceparentOf(trace) } : {}),
  };
}
