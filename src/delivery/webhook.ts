import { CLOUDEVENTS_BATCH, toCloudEvent } from './cloudevents.js';
import { deliveryId, signWebhook } from './standard-webhooks.js';
import { DeliveryError, type DeliveryBatch, type Transport } from './transport.js';

/** Options of {@link webhookTransport}. */
export interface WebhookOptions {
  readonly url: string;
  /** `whsec_…`: opened from its sealed row, or read from the operator's `file:` setting. */
  readonly secret: string;
  readonly issuer: string;
  /** Each attempt's bound: a sink that hangs costs this, never more. */
  readonly timeoutMs: number;
  readonly now?: () => number;
}

/** The bytes of a batch's body: the events as CloudEvents, in log order, as one JSON array. */
export function webhookBody(batch: DeliveryBatch, issuer: string): string {
  return JSON.stringify(batch.events.map((event) => toCloudEvent(event, issuer)));
}

/**
 * Delivers batches as `application/cloudevents-batch+json` POSTs signed per Standard Webhooks.
 * Only a 2xx acknowledges; a redirect is not followed (a receiver's 3xx is an error to fix, not a
 * place to send the audit trail without its admin knowing).
 */
export function webhookTransport(options: WebhookOptions): Transport {
  const now = options.now ?? Date.now;
  const post = async (id: string, body: string): Promise<void> => {
    const headers = signWebhook(options.secret, id, now() / 1000, body);
    let response: Response;
    try {
      response = await fetch(options.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': CLOUDEVENTS_BATCH,
          'user-agent': 'token-authority-audit-sink',
          ...headers,
        },
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause ?? error) : error;
      throw new DeliveryError(
        `webhook unreachable: ${String((reason as Error).message ?? reason)}`,
        {
          cause: error,
        },
      );
    }
    // The body is drained (bounded by the timeout) so the connection returns to the pool.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status < 200 || response.status > 299) {
      throw new DeliveryError(`webhook answered HTTP ${response.status}`);
    }
  };
  return {
    async send(batch) {
      const first = batch.events[0];
      const last = batch.events.at(-1);
      if (!first || !last) return;
      await post(
        deliveryId(batch.sinkId, first.eventId, last.eventId),
        webhookBody(batch, options.issuer),
      );
    },
    // An empty batch, signed like any other: a receiver that verifies and answers 2xx is back.
    probe: () => post(`probe_${now()}`, '[]'),
    close: () => undefined,
  };
}
