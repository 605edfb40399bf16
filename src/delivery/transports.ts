import type { SinkDefinition } from './sinks.js';
import { syslogTransport } from './syslog.js';
import type { TargetRules } from './target-rules.js';
import { DeliveryError, type Transport } from './transport.js';
import { webhookTransport } from './webhook.js';

/**
 * A sink's transport, from its definition: each sink its own connection and timeout, and the
 * deployment's sink target rules applied again at each of its connections.
 */
export function transportFor(
  sink: SinkDefinition,
  options: { readonly issuer: string; readonly timeoutMs: number; readonly rules: TargetRules },
): Transport {
  const { target } = sink;
  // Only these: a caller's wider options (its database URL among them) never reach a sink.
  const { issuer, timeoutMs, rules } = options;
  if (target.kind === 'syslog') {
    return syslogTransport({ ...target, ca: sink.ca, issuer, timeoutMs, rules });
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
  return webhookTransport({ url, secret, issuer, timeoutMs, rules });
}
