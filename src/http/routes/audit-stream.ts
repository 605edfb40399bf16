import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { redactEvent } from '../../audit-trail/redaction.js';
import { fullForm } from '../../domain/stored-form.js';
import type { Database } from '../../db/schema.js';
import { InvalidRequestError, UnavailableError } from '../../errors/errors.js';
import { logHead, positionOf, readLog } from '../../event-store/read-log.js';
import type { LogPosition, RecordedEvent } from '../../event-store/types.js';
import { LOGIN_ERRORS } from '../openapi/operation.js';
import { route, type Route } from '../route.js';
import { auditReadRecorder } from '../audit-read.js';
import type { RequestContext } from '../state.js';
import { validate } from '../validate.js';

/** The live feeds a process serves, bounded, and ended together at shutdown. */
export interface AuditStreams {
  /** Feeds open now (for /metrics). */
  size(): number;
  /** Ends every feed (each records how it ended). */
  close(): void;
}

const position = z
  .string()
  .regex(/^[0-9]{1,18}$/, 'expected the id of an event this stream sent')
  .optional();
const streamQuery = z.object({
  /** For clients that cannot send headers (a first EventSource connection). */
  last_event_id: position.describe('Resume after this event id (as Last-Event-ID does)'),
});
const streamHeaders = z.object({
  'Last-Event-ID': position.describe('Sent by EventSource on reconnect: resume after this event'),
});

/**
 * One Server-Sent Event: the global position as its id, the event type as its name, the event in
 * its full form (what the log leaves out as derivable put back).
 */
function serverSentEvent(stored: RecordedEvent): string {
  const event = fullForm(stored);
  const redacted = redactEvent(event);
  const data = JSON.stringify({
    global_position: event.globalPosition,
    event_id: event.eventId,
    event_type: event.type,
    stream_id: event.streamId,
    recorded_at: event.recordedAt.toISOString(),
    data: redacted.data,
    metadata: event.metadata,
  });
  return `id: ${event.globalPosition}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

/**
 * GET /v1/audit/stream: the space's events as Server-Sent Events, as they commit. Events are sent
 * in commit-safe order (a transaction is sent once every older one has finished), so resuming
 * after the last id received (Last-Event-ID, which EventSource sends by itself) leaves no gap and
 * repeats nothing. Comments every `heartbeatMs` keep proxies from closing a quiet feed. Opening
 * is recorded before the first byte (503 when it cannot be), and how it ended when it ends.
 */
export function auditStreamRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  logger: Logger,
  options: { readonly maxStreams: number; readonly heartbeatMs: number; readonly pollMs: number },
): { readonly routes: readonly Route[]; readonly streams: AuditStreams } {
  const open = new Set<() => void>();
  const record = auditReadRecorder(commands);

  const resumeFrom = async (ctx: RequestContext, spaceId: string): Promise<LogPosition> => {
    const query = validate(streamQuery, ctx.query, 'query');
    const sent = ctx.get('Last-Event-ID');
    const headers = validate(
      streamHeaders,
      { 'Last-Event-ID': sent === '' ? undefined : sent },
      'header',
    );
    const resume = headers['Last-Event-ID'] ?? query.last_event_id;
    if (resume === undefined) return logHead(db);
    const found = await positionOf(db, spaceId, Number(resume));
    if (!found) {
      throw new InvalidRequestError('Last-Event-ID is not an event of this space', [
        { field: 'Last-Event-ID', message: 'is not an event of this space' },
      ]);
    }
    return found;
  };

  const routes: readonly Route[] = [
    route({
      tag: 'Audit',
      caller: 'login',
      spaceHeader: true,
      dialect: 'bearer',
      method: 'get',
      path: '/v1/audit/stream',
      operationId: 'auditStream',
      summary: "The space's events as Server-Sent Events, live, resumable with Last-Event-ID",
      description:
        'Each event: `id` its global position, `event` its type, `data` the event as JSON (secret hashes replaced by a digest). Opening and closing the feed are recorded as audit-log-read events.',
      query: streamQuery,
      headers: streamHeaders,
      responses: [{ status: 200, description: 'An event stream', mediaType: 'text/event-stream' }],
      errors: LOGIN_ERRORS,
      async handle(ctx, who) {
        if (open.size >= options.maxStreams) {
          throw new UnavailableError('too many audit streams open on this instance', {
            retryAfterSeconds: 5,
          });
        }
        let after = await resumeFrom(ctx, who.spaceId);
        const query = { last_event_id: String(after.globalPosition) };
        await record(ctx, who, {
          kind: 'stream-started',
          query,
          rows_returned: 0,
          complete: false,
        }).catch((error: unknown) => {
          throw new UnavailableError('the stream could not be recorded; retry shortly', {
            cause: error,
          });
        });

        let ended = false;
        let wake: (() => void) | undefined;
        const end = () => {
          ended = true;
          wake?.();
        };
        open.add(end);
        ctx.req.on('close', end);
        const pause = (ms: number) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });

        ctx.set('Cache-Control', 'no-store');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.type = 'text/event-stream';
        ctx.req.socket.setTimeout(0);
        ctx.body = Readable.from(
          (async function* () {
            let sent = 0;
            let quietSince = Date.now();
            try {
              yield `: audit stream of ${who.spaceId}\nretry: 2000\n\n`;
              while (!ended) {
                const page = await readLog(db, { after, limit: 500, spaceId: who.spaceId }).catch(
                  (error: unknown) => {
                    // The database is away: keep the feed open and try again.
                    logger.warn({ err: error }, 'audit stream read failed; retrying');
                    return undefined;
                  },
                );
                if (page && page.events.length > 0) {
                  after = page.last;
                  sent += page.events.length;
                  quietSince = Date.now();
                  yield page.events.map(serverSentEvent).join('');
                  continue;
                }
                if (Date.now() - quietSince >= options.heartbeatMs) {
                  quietSince = Date.now();
                  yield ': heartbeat\n\n';
                }
                await pause(options.pollMs);
              }
            } finally {
              open.delete(end);
              await record(ctx, who, {
                kind: 'stream',
                query,
                rows_returned: sent,
                complete: true,
              }).catch((error: unknown) =>
                logger.warn({ err: error, spaceId: who.spaceId }, 'stream end not recorded'),
              );
            }
          })(),
        );
      },
    }),
  ];
  return {
    routes,
    streams: {
      size: () => open.size,
      close: () => {
        for (const end of [...open]) end();
      },
    },
  };
}
