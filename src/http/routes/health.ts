import type { Logger } from 'pino';
import type { Readiness } from '../../db/readiness.js';
import { answerNoStore } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { liveness, readiness as readinessBody } from '../openapi/responses.js';

const ready = [
  { status: 200, description: 'Ready', schema: readinessBody },
  { status: 503, description: 'Not ready, with a reason code', schema: readinessBody },
] as const;

/**
 * The probes. The database's own error text goes to the log, not to whoever asks; /livez never
 * asks the database (a liveness probe failing would restart the process for the database's sake),
 * only `dead`: what a restart mends (an HSM signer whose threads a stall has all taken).
 */
export function healthRoutes(
  readiness: Readiness,
  logger: Logger,
  warnings: () => readonly string[] = () => [],
  dead: () => string | undefined = () => undefined,
): readonly Route[] {
  const checkReady = async (ctx: RequestContext) => {
    const state = await readiness.check();
    ctx.set('Cache-Control', 'no-store');
    if (state.ready) {
      const now = warnings();
      ctx.body = now.length > 0 ? { status: 'ok', warnings: now } : { status: 'ok' };
      return;
    }
    if (state.error) logger.warn({ err: state.error }, 'health check: database unreachable');
    ctx.status = 503;
    ctx.set('Retry-After', '1');
    ctx.body = { status: 'unavailable', reason: state.reason };
  };
  return [
    route('get', '/livez', 'public', {
      tag: 'Operations',
      operationId: 'livez',
      summary: 'Liveness: the process serves (never depends on the database)',
      responses: [
        { status: 200, description: 'Alive', schema: liveness },
        { status: 503, description: 'To be restarted, with a reason code', schema: readinessBody },
      ],
      handle(ctx) {
        const reason = dead();
        if (!reason) return answerNoStore(ctx, { status: 'ok' });
        answerNoStore(ctx, { status: 'unavailable', reason }, 503);
      },
    }),
    route('get', '/readyz', 'public', {
      tag: 'Operations',
      operationId: 'readyz',
      summary: 'Readiness: the database answers and is migrated',
      responses: ready,
      handle: checkReady,
    }),
    route('get', '/healthz', 'public', {
      tag: 'Operations',
      operationId: 'healthz',
      summary: 'Readiness, with warnings about the deployment',
      responses: ready,
      handle: checkReady,
    }),
  ];
}
