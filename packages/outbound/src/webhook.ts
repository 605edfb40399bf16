import { CLOUDEVENTS_BATCH, toCloudEvent } from './cloudevents.js';
import type { Resolver } from './guarded-lookup.js';
import type { Sender } from './outbound-event.js';
import { deliveryId, signWebhook } from './standard-webhooks.js';
import type { TargetRules } from './target-rules.js';
import { DeliveryError, statusFailure, type DeliveryBatch, type Transport } from './transport.js';
import { webhookPoster } from './webhook-post.js';

/** Options of {@link webhookTransport}. */
export interface WebhookOptions extends Sender {
  readonly url: string;
  /** `whsec_…` (Standard Webhooks): the caller keeps it; only the signatures leave. */
  readonly secret: string;
  /** Each attempt's bound: a sink that hangs costs this, never more. */
  readonly timeoutMs: number;
  /** This deployment's sink target rules: each connection is checked against them again. */
  readonly rules: TargetRules;
  /** Defaults to `dns.lookup` (a test plays a name that rebinds). */
  readonly resolve?: Resolver;
  readonly now?: () => number;
}

/** The bytes of a batch's body: the events as CloudEvents, in log order, as one JSON array. */
export function webhookBody(batch: DeliveryBatch, sender: Sender): string {
  return JSON.stringify(
    batch.events.map((event) =>
      toCloudEvent(event, sender, batch.traces?.get(event.globalPosition)),
    ),
  );
}

/**
 * Delivers batches as `application/cloudevents-batch+json` POSTs signed per Standard Webhooks.
 * Only a 2xx acknowledges; a redirect is not followed (a receiver's 3xx is an error to fix, not a
 * place to send the audit trail without its admin knowing). Each connection's address is checked
 * against the sink target rules again (webhook-post.ts): a name may rebind after the sink was made.
 */
export function webhookTransport(options: WebhookOptions): Transport {
  const now = options.now ?? Date.now;
  const poster = webhookPoster(options);
  const post = async (id: string, body: string): Promise<void> => {
    const signature = signWebhook(options.secret, id, now() / 1000, body);
    const status = await poster.post(
      {
        'content-type': CLOUDEVENTS_BATCH,
        'user-agent': `${options.app}-audit-sink`,
        ...signature,
      },
      body,
    );
    if (status < 200 || status > 299) {
      throw new DeliveryError(statusFailure(status), `webhook answered HTTP ${status}`);
    }
  };
  return {
    async send(batch) {
      if (batch.events.length === 0) return;
      await post(deliveryId(batch.sinkId, batch.from, batch.through), webhookBody(batch, options));
    },
    // An empty batch, signed like any other: a receiver that verifies and answers 2xx is back.
    probe: () => post(`probe_${now()}`, '[]'),
    close: () => poster.close(),
  };
}
