import Router from '@koa/router';
import type { Metrics } from '../../observability/metrics.js';

/** GET /metrics: Prometheus text format. Expose it on an internal network only. */
export function metricsRoutes(metrics: Metrics): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
