import { z } from 'zod';
import { sinkTargetSchema } from '../../domain/events.js';
import type { SinkStatus } from '../../delivery/status.js';
import { timestamp, type Body } from './responses.js';

/* The audit sinks' bodies (GET/POST/PATCH /v1/sinks…), as responses.ts declares the others. */

/** One sink and where its delivery stands: never its secret. */
export const sinkStatus = z.object({
  sink_id: z.string(),
  name: z.string(),
  target: sinkTargetSchema,
  paused: z.boolean(),
  /** `failing` (probed until it answers again) or `admin` (waits for an admin's resume). */
  pause_reason: z.string().nullable(),
  /** A stream its receiver made (SSF 1.0 §8): that client; null for an admin's sink. */
  receiver: z.string().nullable(),
  /** Delivered through this event, in commit-safe log order. */
  cursor: z.object({ transaction_id: z.string(), global_position: z.number().int() }),
  delivered: z.number().int(),
  failures: z.number().int(),
  /** Settled events of the space not yet delivered, counted up to 100,000. */
  lag_events: z.number().int(),
  /** How long the oldest undelivered event has waited. */
  lag_seconds: z.number().int(),
  last_error: z.string().nullable(),
  last_error_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
});

/** GET /v1/sinks. */
export const sinkList = z.object({ items: z.array(sinkStatus) });

/** A sink just created or changed: with a webhook's new secret, shown this once. */
export const sinkWithSecret = sinkStatus.extend({
  /** `whsec_…` (Standard Webhooks): verify each delivery's webhook-signature with it. */
  secret: z.string().optional(),
});

/** A status as the API writes it. */
export function sinkStatusBody(status: SinkStatus): Body<typeof sinkStatus> {
  return {
    sink_id: status.sinkId,
    name: status.name,
    target: status.target,
    paused: status.paused,
    pause_reason: status.pauseReason,
    receiver: status.receiver,
    cursor: {
      transaction_id: status.cursor.transactionId,
      global_position: status.cursor.globalPosition,
    },
    delivered: status.delivered,
    failures: status.failures,
    lag_events: status.lagEvents,
    lag_seconds: status.lagSeconds,
    last_error: status.lastError,
    last_error_at: status.lastErrorAt?.toISOString() ?? null,
    delivered_at: status.deliveredAt?.toISOString() ?? null,
  };
}
