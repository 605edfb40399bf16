import { toCloudEvent } from './cloudevents.js';
import type { OutboundEvent, Sender, TraceContext } from './outbound-event.js';

/**
 * The private enterprise number our structured data is named under. 32473 is IANA's number for
 * documentation and examples (RFC 5612); an operator's collector keys on the SD-ID `audit@32473`.
 */
export const SD_ID = 'audit@32473';
/** Facility 13 (log audit), severity 6 (informational): PRI = 13 × 8 + 6. */
const PRI = 13 * 8 + 6;

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped in a PARAM-VALUE. */
const paramValue = (value: string) => value.replace(/["\\\]]/g, (c) => `\\${c}`);

/** RFC 5424 §6.2: printable US-ASCII, no space, bounded; `-` when nothing is left. */
const headerField = (value: string, max: number) =>
  value.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';

/**
 * One event as an RFC 5424 message: PRI, version 1, the time it was recorded, the issuer's host,
 * the sender's app name, MSGID the event type, structured data naming the event (id, space, stream,
 * position, type, and the trace id of the request that appended it when it was sampled), and as
 * MSG the same CloudEvent the webhook sends (UTF-8, with its BOM).
 */
export function syslogMessage(stored: OutboundEvent, sender: Sender, trace?: TraceContext): string {
  const cloudEvent = toCloudEvent(stored, sender, trace);
  const host = headerField(new URL(sender.issuer).hostname, 255);
  const sd =
    `[${SD_ID}` +
    ` event_id="${paramValue(stored.eventId)}"` +
    ` space_id="${paramValue(stored.spaceId)}"` +
    ` stream_id="${paramValue(stored.streamId)}"` +
    ` position="${stored.globalPosition}"` +
    ` type="${paramValue(stored.type)}"` +
    (trace ? ` trace_id="${trace.traceId}"` : '') +
    ']';
  return (
    `<${PRI}>1 ${stored.recordedAt.toISOString()} ${host} ${headerField(sender.app, 48)} - ` +
    `${headerField(stored.type, 32)} ${sd} \u{FEFF}${JSON.stringify(cloudEvent)}`
  );
}

/** RFC 6587 §3.4.1 octet counting: `MSG-LEN SP SYSLOG-MSG`, the length in octets. */
export function octetCounted(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
}
