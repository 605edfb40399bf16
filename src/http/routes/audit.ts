import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { exportChain } from '../../event-store/export-chain.js';
import { InvalidRequestError } from '../../errors/errors.js';
import { queryAudit } from '../../projections/audit-queries.js';
import { requireLoginForSpace, type LoginGate } from '../authentication.js';
import { cursor, instant } from '../query.js';
import { errorDialect } from '../request-context.js';
import { validate } from '../validate.js';

const auditQuery = z.object({
  client_id: z.string().min(1).max(200).optional(),
  kind: z.enum(['private', 'public']).optional(),
  event_type: z.enum(EVENT_TYPES).optional(),
  customer_id: z.string().min(1).max(256).optional(),
  segment_id: z.string().min(1).max(256).optional(),
  from: instant.optional(),
  to: instant.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(100).optional(),
});

const exportQuery = z.object({ from: instant, to: instant });

/**
 * GET /v1/audit/events: the audit trail of a space, filtered, in log order, with cursor pages.
 * GET /v1/audit/export: NDJSON of the space's sealed events in a time range, each with its
 * hash-chain link, for offline verification (`npm run verify-export`).
 */
export function auditRoutes(db: Kysely<Database>, login: LoginGate): Router {
  const router = new Router({ prefix: '/v1/audit' });
  router.use(errorDialect('bearer'), requireLoginForSpace(login));

  router.get('/events', async (ctx) => {
    const query = validate(auditQuery, ctx.query, 'query');
    const page = await queryAudit(db, {
      spaceId: ctx.state.spaceId as string,
      clientId: query.client_id,
      tokenKind: query.kind,
      eventType: query.event_type,
      customerId: query.customer_id,
      segmentId: query.segment_id,
      from: query.from,
      to: query.to,
      afterPosition: query.cursor === undefined ? undefined : cursor.decode(query.cursor),
      limit: query.limit,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      items: page.entries,
      next_cursor: page.nextAfter === null ? null : cursor.encode(page.nextAfter),
    };
  });

  router.get('/export', async (ctx) => {
    const query = validate(exportQuery, ctx.query, 'query');
    if (query.from >= query.to) {
      throw new InvalidRequestError('from must be before to', [
        { field: 'from', message: 'must be before to' },
      ]);
    }
    const lines = exportChain(db, {
      spaceId: ctx.state.spaceId as string,
      from: query.from,
      to: query.to,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.set(
      'Content-Disposition',
      `attachment; filename="audit-${ctx.state.spaceId as string}.ndjson"`,
    );
    ctx.type = 'application/x-ndjson';
    ctx.body = Readable.from(
      (async function* () {
        for await (const line of lines) yield `${JSON.stringify(line)}\n`;
      })(),
    );
  });
  return router;
}
