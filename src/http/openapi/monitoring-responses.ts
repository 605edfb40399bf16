import { z } from 'zod';
import { timestamp } from './responses.js';

/* The monitoring API's bodies (GET /v1/monitoring/...), as responses.ts declares the others. */

const counts = z.object({
  private_tokens: z.number(),
  public_tokens: z.number(),
  rejected_authentications: z.number(),
});

/** GET /v1/monitoring/clients/:client_id/scopes. */
export const clientScopes = z.object({
  client_id: z.string(),
  from: timestamp,
  to: timestamp,
  scopes: z.array(
    z.object({
      scope: z.string(),
      private_tokens: z.number().int(),
      public_tokens: z.number().int(),
    }),
  ),
});

export const clientRates = z.object({
  client_id: z.string(),
  granularity: z.enum(['minute', 'hour']),
  from: timestamp,
  to: timestamp,
  totals: counts,
  per_second: counts,
  buckets: z.array(counts.extend({ bucket_start: timestamp })),
});

export const topClients = z.object({
  from: timestamp,
  metric: z.enum(['tokens', 'private_tokens', 'public_tokens', 'rejected_authentications']),
  clients: z.array(counts.extend({ client_id: z.string(), name: z.string().nullable() })),
});

export const monitoringOverview = z.object({
  from: timestamp,
  to: timestamp,
  totals: counts,
  rate_limited: z.object({
    requests: z.number().int(),
    since: timestamp.describe('When this API process started counting.'),
    scope: z.literal('this API process'),
  }),
  projector: z.array(
    z.object({ projection: z.string(), events_behind: z.number(), seconds_behind: z.number() }),
  ),
});
