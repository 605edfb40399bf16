import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import type { ReadRouter } from '../../db/read-replica.js';
import { readFrom } from '../read-source.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { archivedOverlapping, BEGINNING, END } from '../../audit-trail/prove/archived-ranges.js';
import { exportSpaceTree } from '../../audit-trail/prove/export-tree.js';
import { listCheckpoints } from '../../audit-trail/prove/jws-checkpoints.js';
import { findTreeHead } from '../../audit-trail/prove/tree-heads.js';
import { fieldsInvalid, RangeArchivedError, UnavailableError } from '../../errors/errors.js';
import { queryAudit } from '../../projections/audit-queries.js';
import type { AuditKey } from '../../audit-trail/audit-key.js';
import { cursor, instant } from '../query.js';
import { answerNoStore } from '../respond.js';
import { route, type Route } from '../route.js';
import { ASKED, AUDIT_READ_ROUTE, auditReadRecorder } from '../audit-read.js';
import type { RequestContext } from '../state.js';
import { auditCheckpoints, auditPage, type Body } from '../openapi/responses.js';

const auditQuery = z.object({
  client_id: z.string().min(1).max(200).optional(),
  kind: z.enum(['private', 'public']).optional(),
  event_type: z.enum(EVENT_TYPES).optional(),
  customer_id: z.string().min(1).max(256).optional(),
  segment_id: z.string().min(1).max(256).optional(),
  /** Issuances that granted this scope, and credential events that name it. */
  scope: z.string().min(1).max(128).optional(),
  /** Delegated tokens whose actor chain names this client id, and may_act tokens allowing it. */
  agent: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Issue 55: public tokens whose act chain names this client id (delegated tokens it acted in), or whose may_act allows it',
    ),
  from: instant.optional(),
  to: instant.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(100).optional(),
  /** `desc`: newest first; pass the same order with the cursor of its pages. */
  order: z.enum(['asc', 'desc']).default('asc'),
});

const exportQuery = z.object({
  from: instant,
  to: instant,
  /** `signed-head`: events up to the newest signed head only, so verify-export passes as is. */
  through: z.enum(['signed-head', 'now']).default('signed-head'),
});

const read = AUDIT_READ_ROUTE;

/** The query string as sent, for the audit-read event (validated already, so storable). */
const queryOf = (ctx: RequestContext): Record<string, string> =>
  Object.fromEntries(
    Object.entries(ctx.query).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.join(',') : (value ?? ''),
    ]),
  );

/**
 * The audit log of a space, for its dashboard users; every read is itself recorded as an
 * audit-log-read event (who asked, what, how many rows came back). The export is what
 * `npm run verify-export` checks.
 */
export function auditRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  reads: ReadRouter,
  auditKey: Pick<AuditKey, 'publicJwk'>,
  logger: Logger,
): readonly Route[] {
  const record = auditReadRecorder(commands);
  return [
    route('get', '/v1/audit/events', 'space-read', {
      ...read,
      operationId: 'auditEvents',
      summary: "The space's audit trail in log order, filtered, in cursor pages",
      query: auditQuery,
      responses: [{ status: 200, description: 'A page', schema: auditPage }],
      async handle(ctx, who, { query }) {
        const source = readFrom(ctx, reads);
        const archived = (
          await archivedOverlapping(source, {
            spaceId: who.spaceId,
            from: query.from ?? BEGINNING,
            to: query.to ?? END,
          })
        ).map(({ from, to, file, sha256, events }) => ({ from, to, file, sha256, events }));
        const page = await queryAudit(source, {
          spaceId: who.spaceId,
          clientId: query.client_id,
          tokenKind: query.kind,
          eventType: query.event_type,
          customerId: query.customer_id,
          segmentId: query.segment_id,
          scope: query.scope,
          agent: query.agent,
          from: query.from,
          to: query.to,
          afterPosition: query.cursor === undefined ? undefined : cursor.decode(query.cursor),
          newestFirst: query.order === 'desc',
          limit: query.limit,
        });
        await record(ctx, who, {
          kind: 'events',
          query: queryOf(ctx),
          rows_returned: page.entries.length,
          complete: true,
        });
        // No silent holes: a range that left the database is named, never an empty page.
        if (page.entries.length === 0 && archived.length > 0 && query.cursor === undefined) {
          throw new RangeArchivedError(archived);
        }
        answerNoStore(ctx, {
          items: page.entries,
          next_cursor: page.nextAfter === null ? null : cursor.encode(page.nextAfter),
          archived,
        } satisfies Body<typeof auditPage>);
      },
    }),
    route('get', '/v1/audit/export', 'space-read', {
      ...read,
      operationId: 'auditExport',
      summary: "NDJSON of the space's events and its tree's signed heads, for verify-export",
      query: exportQuery,
      responses: [
        { status: 200, description: 'One JSON object per line', mediaType: 'application/x-ndjson' },
      ],
      async handle(ctx, who, { query }) {
        if (query.from >= query.to) {
          throw fieldsInvalid({ field: 'from', message: 'must be before to' });
        }
        // Recorded before the first byte leaves: an export the trail does not know of never starts.
        await record(ctx, who, {
          kind: 'export-started',
          query: queryOf(ctx),
          ...ASKED,
        }).catch((error: unknown) => {
          throw new UnavailableError('the export could not be recorded; retry shortly', {
            cause: error,
          });
        });
        // Events after the newest signed head are not anchored yet: left out unless asked for.
        const through =
          query.through === 'now' ? undefined : ((await findTreeHead(db, who.spaceId))?.size ?? 0);
        if (through !== undefined) ctx.set('X-Export-Through', String(through));
        const lines = exportSpaceTree(db, {
          spaceId: who.spaceId,
          from: query.from,
          to: query.to,
          ...(through === undefined ? {} : { throughSequence: through }),
        });
        const recordExport = (rows: number, complete: boolean) =>
          record(ctx, who, { kind: 'export', query: queryOf(ctx), rows_returned: rows, complete });
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Content-Disposition', `attachment; filename="audit-${who.spaceId}.ndjson"`);
        ctx.type = 'application/x-ndjson';
        ctx.body = Readable.from(
          (async function* () {
            let rows = 0;
            let complete = false;
            try {
              for await (const line of lines) {
                rows += 1;
                yield `${JSON.stringify(line)}\n`;
              }
              complete = true;
            } finally {
              // How it ended, once it ends or the reader goes away; its start is already recorded.
              await recordExport(rows, complete).catch((error: unknown) =>
                logger.warn({ err: error, spaceId: who.spaceId }, 'export end not recorded'),
              );
            }
          })(),
        );
      },
    }),
    route('get', '/v1/audit/checkpoints', 'space-read', {
      ...read,
      operationId: 'auditCheckpoints',
      summary: "The space's signed checkpoints and the public key that verifies them",
      responses: [{ status: 200, description: 'Checkpoints', schema: auditCheckpoints }],
      async handle(ctx, who) {
        const checkpoints = await listCheckpoints(db, who.spaceId);
        await record(ctx, who, {
          kind: 'checkpoints',
          query: {},
          rows_returned: checkpoints.length,
          complete: true,
        });
        answerNoStore(ctx, {
          public_key: auditKey.publicJwk,
          checkpoints,
        } satisfies Body<typeof auditCheckpoints>);
      },
    }),
  ];
}
