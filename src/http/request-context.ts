import type { RequestObserver } from '../observability/request-observer.js';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import { MethodNotAllowedError, NotFoundError, UnavailableError } from '../errors/errors.js';
import { uuidv7 } from '../domain/ports.js';
import type { EventMetadata } from '../domain/events.js';
import { writeError } from './error-response.js';
import { RequestDeadline, withDeadline } from '#event-log/append-deadline.js';
import type { ErrorDialect, RequestState } from './state.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Who sent a request, as recorded in event metadata (all of it but the actor). No credentials. */
export type RequestMetadata = Readonly<Omit<EventMetadata, 'actor'>>;

interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * Every in-flight request's deadline, swept by one timer instead of a timer per request. All
 * deadlines are the same length, so insertion order is expiry order: a sweep stops at the first
 * that is still in the future. Precision is the sweep interval (a tenth of a second at most).
 */
class Deadlines {
  readonly #pending = new Set<Deadline>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(expire: () => void): Deadline {
    const deadline = { at: Date.now() + this.ms, expire };
    this.#pending.add(deadline);
    this.#timer ??= setInterval(() => this.#sweep(), Math.min(100, this.ms)).unref();
    return deadline;
  }

  readonly remove = (deadline: Deadline) => void this.#pending.delete(deadline);

  #sweep(): void {
    const now = Date.now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) break;
      this.#pending.delete(deadline);
      deadline.expire();
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/**
 * Outermost middleware: request id, one access-log line per request (no headers, no bodies, so no
 * secrets), and the single place errors become responses.
 */
export function requestContext(
  logger: Logger,
  observe?: RequestObserver,
  deadlineMs = 5000,
): Middleware<RequestState> {
  const deadlines = new Deadlines(deadlineMs);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    // Our own id for every request; a caller's X-Request-Id is kept beside it, never instead of it,
    // so events can be correlated with the caller's logs but never forged into colliding. A UUIDv7,
    // as event ids are: a token issuance's event id is its request's (src/domain/stored-form.ts).
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = uuidv7();
    if (REQUEST_ID.test(incoming)) ctx.state.clientRequestId = incoming;
    ctx.state.errorDialect ??= 'problem';
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    let deadline: Deadline | undefined;
    try {
      // The backstop behind every database timeout: no request waits longer than the deadline,
      // unless it wrote (append-deadline.ts). A handler still running then writes nothing more.
      await new Promise<void>((resolve, reject) => {
        const writes = new RequestDeadline(() =>
          reject(new UnavailableError(`no answer within ${deadlineMs} ms; retry shortly`)),
        );
        deadline = deadlines.add(() => writes.pass());
        withDeadline(ctx.state.requestId, writes, next).then(() => resolve(), reject);
      });
      // The router answers unknown paths and methods with empty bodies; give them ours.
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404 || ctx.status === 501) {
          throw new NotFoundError(`no route for ${ctx.method} ${ctx.path}`);
        }
        if (ctx.status === 405) {
          throw new MethodNotAllowedError(ctx.response.get('Allow').split(/,\s*/));
        }
      }
    } catch (error) {
      writeError(ctx, error, ctx.state.errorDialect, logger);
    } finally {
      if (deadline) deadlines.remove(deadline);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = (ctx as { routerPath?: string }).routerPath ?? 'unmatched';
    observe?.({
      method: ctx.method,
      route,
      status: ctx.status,
      seconds,
      rateLimitPolicy: ctx.state.rateLimitPolicy,
    });
    logger.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(seconds * 10_000) / 10,
        // Who, from where, for which space: also on refusals (a 401, a cross-space 403).
        ip: ctx.ip,
        clientId: ctx.state.clientId,
        subject: ctx.state.user?.subject,
        spaceId: ctx.state.spaceId,
      },
      'request',
    );
  };
}

/**
 * The request's metadata for events: our request id (and the caller's, if sent), the client IP
 * (through TRUSTED_PROXY_HOPS trusted proxies at most), the user agent.
 */
export function requestMetadata(ctx: ParameterizedContext<RequestState>): RequestMetadata {
  const userAgent = ctx.get('user-agent');
  const { clientRequestId } = ctx.state;
  return {
    request_id: ctx.state.requestId,
    ...(clientRequestId ? { client_request_id: clientRequestId } : {}),
    client_ip: ctx.ip,
    user_agent: userAgent ? userAgent.slice(0, 512) : null,
  };
}

/** Sets how errors of the routes below are written. */
export function errorDialect(dialect: ErrorDialect): Middleware<RequestState> {
  return async (ctx, next) => {
    ctx.state.errorDialect = dialect;
    await next();
  };
}
