import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { loginRefusal, type LoginRoutePolicy } from '../domain/policy.js';
import { InvalidTokenError } from '../errors/errors.js';
import type { LoginTokenVerifier } from '../crypto/login-tokens.js';
import type { LogTail } from '#event-log/log-tail.js';
import { isAfter, readLog } from '#event-log/read-log.js';
import type { LogPosition, RecordedEvent } from '#event-log/types.js';
import { msOf } from '../domain/times.js';

/** Why a live feed ended, as its last Server-Sent Event says. */
export type FeedEnd =
  'login_token_expired' | 'authorization_withdrawn' | 'too_far_behind' | 'shutdown' | 'client_gone';

// A reader this many events behind is ended (it resumes with Last-Event-ID): a client that reads
// nothing must not hold the process's memory.
const MAX_QUEUED = 10_000;

/**
 * One live feed of a space: what has come and not yet been sent, filled first by its own
 * catch-up reads, then by the process's shared poll ({@link LogTail}), and how it ends.
 */
export interface Feed {
  /** Events received and not yet taken. */
  take(): readonly RecordedEvent[];
  /** Resolves when there is something to take, the feed ended, or `ms` passed. */
  wait(ms: number): Promise<void>;
  /** Why it ended, once it has. */
  ended(): FeedEnd | undefined;
  end(reason: FeedEnd): void;
}

/**
 * Opens a feed of `spaceId` after `from`: reads its own backlog up to where the shared poll
 * stands (one query a page), then joins the poll. Nothing is skipped or sent twice: the poll
 * delivers only what comes after the position the feed joined at.
 */
export function openFeed(
  db: Kysely<Database>,
  tail: LogTail,
  spaceId: string,
  from: LogPosition,
  failed: (error: unknown) => void,
): Feed {
  let queue: RecordedEvent[] = [];
  let why: FeedEnd | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const feed: Feed = {
    take() {
      const taken = queue;
      queue = [];
      return taken;
    },
    wait: (ms) =>
      queue.length > 0 || why
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              wake = undefined;
              resolve();
            }, ms);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          }),
    ended: () => why,
    end(reason) {
      if (why) return;
      why = reason;
      tail.leave(reader);
      notify();
    },
  };
  const reader = {
    spaceId,
    deliver(events: readonly RecordedEvent[]) {
      queue.push(...events);
      if (queue.length > MAX_QUEUED) feed.end('too_far_behind');
      notify();
    },
  };
  void catchUp();
  return feed;

  async function catchUp(): Promise<void> {
    let after = from;
    while (!why) {
      if (tail.join(reader, after)) return;
      if (!tail.isOpen()) return feed.end('shutdown');
      const target = tail.position();
      if (!target || !isAfter(target, after)) {
        await tail.settled(); // a tick is under way: join once it is done
        continue;
      }
      try {
        const page = await readLog(db, { after, through: target, limit: 500, spaceId });
        if (page.events.length > 0) reader.deliver(page.events);
        after = page.events.length === 500 ? page.last : target;
      } catch (error) {
        failed(error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}

// setTimeout's longest delay; a login token may live longer (re-authorisation ends it anyway).
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Ends `feed` when the login token that opened it expires, or when verifying it again (every
 * `everyMs`) fails or the route's policy no longer lets its user in (the space no longer granted,
 * say): an open connection keeps no authority its token has lost. Returns what stops the watch.
 */
export function watchAuthority(
  feed: Pick<Feed, 'end'>,
  authority: {
    readonly token: string;
    readonly spaceId: string;
    /** The policy of the route that opened the feed, applied again at each check. */
    readonly policy: LoginRoutePolicy;
    /** The token's exp, epoch seconds. */
    readonly expiresAt: number;
    readonly everyMs: number;
    readonly login: LoginTokenVerifier;
    readonly logger: Pick<Logger, 'warn'>;
  },
): () => void {
  const expiresAtMs = msOf(authority.expiresAt);
  const expiry = setTimeout(
    () => feed.end('login_token_expired'),
    Math.min(Math.max(0, expiresAtMs - Date.now()), MAX_TIMER_MS),
  );
  const recheck = setInterval(() => {
    authority.login.verify(authority.token).then(
      (identity) => {
        if (loginRefusal(authority.policy, identity, authority.spaceId)) {
          feed.end('authorization_withdrawn');
        }
      },
      (error: unknown) => {
        if (!(error instanceof InvalidTokenError)) {
          authority.logger.warn({ err: error }, 'audit stream reauthorisation failed');
        }
        feed.end(Date.now() >= expiresAtMs ? 'login_token_expired' : 'authorization_withdrawn');
      },
    );
  }, authority.everyMs);
  return () => {
    clearTimeout(expiry);
    clearInterval(recheck);
  };
}
