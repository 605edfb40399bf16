import { UnavailableError } from '../../errors/errors.js';
import type { Metrics } from '../../observability/metrics.js';
import { route, type Route } from '../route.js';

/** GET /metrics: Prometheus text format. Expose it on an internal network only. */
export function metricsRoutes(metrics: Metrics): readonly Route[] {
  return [
    route('get', '/metrics', 'public', {
      operationId: 'metrics',
      tag: 'Operations',
      summary: 'Prometheus metrics (text exposition format)',
      responses: [{ status: 200, description: 'Metrics', mediaType: 'text/plain' }],
      async handle(ctx) {
        // Under npm start's workers the text is gathered from all of them; one restarting makes
        // the scrape a 503 to retry, not a 500.
        const text = await metrics.text().catch((error: unknown) => {
          throw new UnavailableError('metrics could not be gathered from every API worker', {
            cause: error,
          });
        });
        ctx.type = metrics.registry.contentType;
        ctx.body = text;
      },
    }),
  ];
}
