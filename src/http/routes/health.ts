import Router from '@koa/router';
import type { Readiness } from '../../db/readiness.js';

/** GET /healthz: 200 once the database answers and is migrated, 503 otherwise. */
export function healthRoutes(readiness: Readiness): Router {
  const router = new Router();
  router.get('/healthz', async (ctx) => {
    const state = await readiness.check();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = state.ready ? 200 : 503;
    ctx.body = state.ready ? { status: 'ok' } : { status: 'unavailable', detail: state.detail };
  });
  return router;
}
