import Router from '@koa/router';
import { UnavailableError } from '../../errors/errors.js';
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
    // Under npm start's workers the text is gathered from all of them; one restarting makes the
    // scrape a 503 to retry, not a 500.
    const text = await metrics.text().catch((error: unknown) => {
      throw new UnavailableError('metrics could not be gathered from every API worker', {
        cause: error,
      });
    });
    ctx.type = metrics.registry.contentType;
    ctx.body = text;
  });
  return router;
}
