import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { LogPosition } from './transport.js';

/** The prefix of a Standard Webhooks secret: `whsec_` then the base64 of its bytes. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret for a webhook sink: 32 random bytes, shown once at creation. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The headers of one signed delivery (Standard Webhooks, "Signature scheme"). */
export interface WebhookSignatureHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Signs a delivery as the Standard Webhooks spec says: HMAC-SHA256, keyed by the base64-decoded
 * part of the secret after `whsec_`, over `{id}.{timestamp}.{body}`; sent as `v1,<base64>`. The
 * id must be the same on every retry of this delivery (receivers deduplicate on it); the
 * timestamp is when this attempt was made (receivers refuse old ones: replay protection).
 */
export function signWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): WebhookSignatureHeaders {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  const timestamp = String(Math.floor(timestampSeconds));
  const signature = createHmac('sha256', key)
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

/**
 * The stable id of a delivery: the sink and the range of the log its batch carries (after `from`,
 * through `through`). A retry sends the same range; so does a deliverer after a crash (the range
 * is held on the cursor row before the first send): a receiver de-duplicating by webhook-id
 * keeps each range once (issue 51, item 13).
 */
export function deliveryId(sinkId: string, from: LogPosition, through: LogPosition): string {
  const digest = createHash('sha256')
    .update(
      `${sinkId}\n${from.transactionId}:${from.globalPosition}\n${through.transactionId}:${through.globalPosition}`,
    )
    .digest('base64url')
    .slice(0, 32);
  return `msg_${digest}`;
}
