import Router from '@koa/router';
import type { Metrics } from '../../observability/metrics.js';
import type { Operation } from '../openapi/operation.js';

/** The OpenAPI description of {@link metricsRoutes} (absent when METRICS_PORT is set). */
export const metricsOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (text exposition format)',
    caller: 'public',
    responses: [{ status: 200, description: 'Metrics', mediaType: 'text/plain' }],
    errors: [],
    dialect: 'problem',
  },
];

/** GET /metrics: Prometheus text format. Expose it on an internal network only. */
export function metricsRoutes(metrics: Metrics): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.text();
  });
  return router;
}
