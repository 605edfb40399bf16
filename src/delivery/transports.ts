import type { OutboundEvent } from '#outbound/outbound-event.js';
import { syslogTransport } from '#outbound/syslog.js';
import type { TargetRules } from '#outbound/target-rules.js';
import { DeliveryError, type DeliveryBatch, type Transport } from '#outbound/transport.js';
import { webhookTransport } from '#outbound/webhook.js';
import { redactEvent } from '../audit-trail/redaction.js';
import { fullForm } from '../domain/stored-form.js';
import type { RecordedEvent } from '#event-log/types.js';
import type { SinkDefinition } from './sinks.js';

/** A batch of the log as the sink loop reads it: events as stored. */
export type SinkBatch = DeliveryBatch<RecordedEvent>;
/** A sink's transport as the sink loop uses it: it takes events as stored. */
export type SinkTransport = Transport<RecordedEvent>;

/** The name a sink's receivers see: CloudEvent types `com.token-authority.…`, syslog APP-NAME. */
const APP = 'token-authority';

/** The event as it leaves: full form, redacted as exports and the live feed are. */
export const leavingEvent = (stored: RecordedEvent): OutboundEvent => redactEvent(fullForm(stored));

/** A sink's own transport, target rules at each connect, events via {@link leavingEvent}. */
export function transportFor(
  sink: SinkDefinition,
  options: { readonly issuer: string; readonly timeoutMs: number; readonly rules: TargetRules },
): SinkTransport {
  const outbound = outboundTransport(sink, options);
  return {
    send: (batch) => outbound.send({ ...batch, events: batch.events.map(leavingEvent) }),
    probe: () => outbound.probe(),
    close: () => outbound.close(),
  };
}

function outboundTransport(
  sink: SinkDefinition,
  options: { readonly issuer: string; readonly timeoutMs: number; readonly rules: TargetRules },
): Transport {
  const { target } = sink;
  // Only these: a caller's wider options (its database URL among them) never reach a sink.
  const { issuer, timeoutMs, rules } = options;
  if (target.kind === 'syslog') {
    return syslogTransport({ ...target, ca: sink.ca, issuer, app: APP, timeoutMs, rules });
  }
  const { secret, url } = sink;
  if (secret === undefined || url === undefined) {
    // Sealed under a key-encryption key this process does not hold: fails, pauses, is named.
    const missing = async () => {
      throw new DeliveryError(
        'secret_unavailable',
        'the webhook secret or sealed path cannot be opened with this key-encryption key',
      );
    };
    return { send: missing, probe: missing, close: () => undefined };
  }
  return webhookTransport({ url, secret, issuer, app: APP, timeoutMs, rules });
}
