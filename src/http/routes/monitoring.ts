import Router from '@koa/router';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import { clientRates, topClients } from '../../projections/monitoring-queries.js';
import type { Clock } from '../../domain/ports.js';
import { requireLoginForSpace, type LoginGate } from '../authentication.js';
import { window } from '../query.js';
import { errorDialect } from '../request-context.js';
import { validate } from '../validate.js';

const ratesQuery = z.object({
  granularity: z.enum(['minute', 'hour']).default('minute'),
  window: window.default(60 * 60_000),
});

const clientPath = z.object({ client_id: z.string().min(1).max(200) });

const topQuery = z.object({
  window: window.default(60 * 60_000),
  metric: z
    .enum(['tokens', 'private_tokens', 'public_tokens', 'rejected_authentications'])
    .default('tokens'),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

/**
 * GET /v1/monitoring/clients/:client_id/rates: a client's per-minute or per-hour counts over a
 * window, with totals and the average rate per second.
 * GET /v1/monitoring/top-clients: the busiest clients of the space over a window.
 */
export function monitoringRoutes(db: Kysely<Database>, login: LoginGate, clock: Clock): Router {
  const router = new Router({ prefix: '/v1/monitoring' });
  router.use(errorDialect('bearer'), requireLoginForSpace(login));

  router.get('/clients/:client_id/rates', async (ctx) => {
    const query = validate(ratesQuery, ctx.query, 'query');
    const { client_id: clientId } = validate(clientPath, ctx.params, 'path');
    const to = new Date(clock.now());
    const from = new Date(to.getTime() - query.window);
    const buckets = await clientRates(db, {
      spaceId: ctx.state.spaceId as string,
      clientId,
      granularity: query.granularity,
      from,
      to,
    });
    const totals = buckets.reduce(
      (sum, bucket) => ({
        private_tokens: sum.private_tokens + Number(bucket.private_tokens),
        public_tokens: sum.public_tokens + Number(bucket.public_tokens),
        rejected_authentications:
          sum.rejected_authentications + Number(bucket.rejected_authentications),
      }),
      { private_tokens: 0, public_tokens: 0, rejected_authentications: 0 },
    );
    const seconds = query.window / 1000;
    ctx.body = {
      client_id: ctx.params.client_id,
      granularity: query.granularity,
      from: from.toISOString(),
      to: to.toISOString(),
      totals,
      per_second: {
        private_tokens: totals.private_tokens / seconds,
        public_tokens: totals.public_tokens / seconds,
        rejected_authentications: totals.rejected_authentications / seconds,
      },
      buckets,
    };
  });

  router.get('/top-clients', async (ctx) => {
    const query = validate(topQuery, ctx.query, 'query');
    const from = new Date(clock.now() - query.window);
    ctx.body = {
      from: from.toISOString(),
      metric: query.metric,
      clients: await topClients(db, {
        spaceId: ctx.state.spaceId as string,
        from,
        metric: query.metric,
        limit: query.limit,
      }),
    };
  });
  return router;
}
