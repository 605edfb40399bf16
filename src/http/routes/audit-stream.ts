import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { redactEvent } from '../../audit-trail/redaction.js';
import { fullForm } from '../../domain/stored-form.js';
import type { Database } from '../../db/schema.js';
import { fieldsInvalid, UnavailableError } from '../../errors/errors.js';
import { createLogTail } from '#event-log/log-tail.js';
import { logHead, positionOf } from '#event-log/read-log.js';
import type { LogPosition, RecordedEvent } from '#event-log/types.js';
import type { LoginTokenVerifier } from '../../crypto/login-tokens.js';
import { openFeed, watchAuthority, type Feed, type FeedEnd } from '../audit-feed.js';
import type { LoginRoutePolicy } from '../../domain/policy.js';
import { bearerToken } from '../authentication.js';
import { createStreamSlots, type StreamCaps } from '../stream-slots.js';
import { route, type Route } from '../route.js';
import { ASKED, auditReadRecorder } from '../audit-read.js';
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

/** Who may open the feed, applied again while it is open (watchAuthority). */
const STREAM_POLICY = 'space-read' satisfies LoginRoutePolicy;

/** What each way of ending tells the client (the last event of the feed). */
const ENDINGS: Readonly<Record<FeedEnd, string>> = {
  login_token_expired: 'the login token expired: reconnect with a fresh one and Last-Event-ID',
  authorization_withdrawn:
    'the login token no longer grants this space: reconnect with one that does',
  too_far_behind: 'the client read too slowly: reconnect with Last-Event-ID',
  shutdown: 'this instance is stopping: reconnect with Last-Event-ID',
  client_gone: 'the client went away',
};

/** The feed's last event: why it ended. */
const endingEvent = (reason: FeedEnd) =>
  `event: stream-ended\ndata: ${JSON.stringify({ reason, detail: ENDINGS[reason] })}\n\n`;

/** Settings of {@link auditStreamRoutes}. */
export interface AuditStreamOptions {
  readonly caps: StreamCaps;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  /** How often a live feed's login token is verified again (and its space grant checked). */
  readonly reauthorizeMs: number;
  /** The verifier of login tokens, asked again while a feed is open. */
  readonly login: LoginTokenVerifier;
}

/**
 * GET /v1/audit/stream: the space's events as Server-Sent Events in commit-safe order, so resuming
 * after Last-Event-ID leaves no gap and repeats nothing. A feed lives no longer than its login
 * token and is re-authorised every `reauthorizeMs`; one poll of the log feeds every feed of a
 * process. Opening is recorded before the first byte (503 when it cannot be).
 */
export function auditStreamRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  logger: Logger,
  options: AuditStreamOptions,
): { readonly routes: readonly Route[]; readonly streams: AuditStreams } {
  const open = new Set<Feed>();
  const record = auditReadRecorder(commands);
  const slots = createStreamSlots(options.caps);
  const failed = (error: unknown) =>
    logger.warn({ err: error }, 'audit stream read failed; retrying');
  const tail = createLogTail(db, { pollMs: options.pollMs, pageSize: 500, failed });

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
      throw fieldsInvalid({ field: 'Last-Event-ID', message: 'is not an event of this space' });
    }
    return found;
  };

  const routes: readonly Route[] = [
    route('get', '/v1/audit/stream', STREAM_POLICY, {
      tag: 'Audit',
      operationId: 'auditStream',
      summary: "The space's events as Server-Sent Events, live, resumable with Last-Event-ID",
      description:
        'Each event: `id` its global position, `event` its type, `data` the event as JSON (secret hashes replaced by a digest). The feed ends when its login token expires, when the token no longer verifies or grants the space (checked every minute), or when the instance stops, with a last `stream-ended` event whose `reason` says which. Opening and closing the feed are recorded as audit-log-read events.',
      query: streamQuery,
      headers: streamHeaders,
      responses: [{ status: 200, description: 'An event stream', mediaType: 'text/event-stream' }],
      errors: ['rate_limited'],
      async handle(ctx, who) {
        // Before the first await: a burst of opens cannot all pass one check.
        const release = slots.take(who.spaceId, `${who.user.issuer}|${who.user.subject}`);
        let query: Record<string, string>;
        let after: LogPosition;
        try {
          after = await resumeFrom(ctx, who.spaceId);
          query = { last_event_id: String(after.globalPosition) };
          await record(ctx, who, {
            kind: 'stream-started',
            query,
            ...ASKED,
          }).catch((error: unknown) => {
            throw new UnavailableError('the stream could not be recorded; retry shortly', {
              cause: error,
            });
          });
        } catch (error) {
          release();
          throw error;
        }

        const feed = openFeed(db, tail, who.spaceId, after, failed);
        open.add(feed);
        const stopWatching = watchAuthority(feed, {
          token: bearerToken(ctx),
          spaceId: who.spaceId,
          policy: STREAM_POLICY,
          expiresAt: who.user.expiresAt,
          everyMs: options.reauthorizeMs,
          login: options.login,
          logger,
        });
        ctx.req.on('close', () => feed.end('client_gone'));

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
              while (!feed.ended()) {
                const events = feed.take();
                if (events.length > 0) {
                  sent += events.length;
                  quietSince = Date.now();
                  yield events.map(serverSentEvent).join('');
                  continue;
                }
                const quiet = Date.now() - quietSince;
                if (quiet >= options.heartbeatMs) {
                  quietSince = Date.now();
                  yield ': heartbeat\n\n';
                  continue;
                }
                await feed.wait(options.heartbeatMs - quiet);
              }
              const reason = feed.ended()!;
              if (reason !== 'client_gone') yield endingEvent(reason);
            } finally {
              feed.end('client_gone');
              stopWatching();
              open.delete(feed);
              release();
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
      size: () => slots.size(),
      close: () => {
        for (const feed of [...open]) feed.end('shutdown');
        tail.close();
      },
    },
  };
}
