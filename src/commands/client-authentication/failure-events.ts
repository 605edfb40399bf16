import type { Logger } from 'pino';
import type { Clock, IdGenerator } from '../../domain/ports.js';
import {
  decideFailureRecording,
  decideFailureSummary,
} from '../../domain/client-authentication/decide.js';
import { streams, type DomainEvent } from '../../domain/events.js';
import type { EventStore } from '../../event-store/event-store.js';

/** Failed-authentication events with a per-client budget; see {@link createFailureEvents}. */
export interface FailureEvents {
  /** A failed authentication of a known client: appended while under budget, else counted. */
  failed(
    spaceId: string,
    failure: DomainEvent<'client-authentication-failed'>,
    ip: string,
  ): Promise<void>;
  /** An attempt refused unchecked (its client and IP were locked out): counted. */
  refused(spaceId: string, clientId: string, ip: string): void;
  /** Writes the summary of every window that has closed. Returns how many were written. */
  flushClosedWindows(): Promise<number>;
  /** Writes every summary, closed or not (shutdown), and stops the timer. */
  close(): Promise<void>;
  /** Clients with a window open (for /metrics). */
  size(): number;
}

interface ClientWindow {
  readonly spaceId: string;
  readonly windowStart: number;
  appended: number;
  failed: number;
  refused: number;
  readonly ips: Set<string>;
  ipCount: number;
}

const WINDOW_MS = 60_000;
const MAX_IPS_LISTED = 50;

/**
 * At most `perMinute` client-authentication-failed events per client per minute (UTC minutes);
 * the rest are counted and written as one client-authentication-failures-summarized event per
 * client per window, once the window has closed (checked every few seconds, so within a minute of
 * it whether or not another attempt comes) and on shutdown. Whatever an attacker sends, the log
 * grows by at most perMinute + 1 events per client per minute per API process.
 */
export function createFailureEvents(options: {
  readonly events: EventStore;
  readonly perMinute: number;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly maxClients?: number;
  readonly flushIntervalMs?: number;
}): FailureEvents {
  const windows = new Map<string, ClientWindow>();
  const maxClients = options.maxClients ?? 100_000;

  const write = async (clientId: string, window: ClientWindow) => {
    const event = decideFailureSummary(
      { clientId, eventId: options.ids.eventId(), requestId: options.ids.eventId() },
      { ...window, windowMs: WINDOW_MS, ips: [...window.ips] },
    );
    if (!event) return false;
    await options.events.appendNewStream({
      spaceId: window.spaceId,
      streamId: streams.failureSummary(event.eventId),
      events: [event],
    });
    return true;
  };

  /** Takes the windows that `due` selects out of the map and writes their summaries. */
  const flush = async (due: (window: ClientWindow) => boolean) => {
    const taken = [...windows].filter(([, window]) => due(window));
    for (const [clientId] of taken) windows.delete(clientId);
    let written = 0;
    for (const [clientId, window] of taken) {
      try {
        if (await write(clientId, window)) written += 1;
      } catch (error) {
        // The database is away: keep the counts for the next flush rather than lose them.
        const current = windows.get(clientId);
        if (!current) windows.set(clientId, window);
        else {
          current.failed += window.failed;
          current.refused += window.refused;
        }
        options.logger.warn({ err: error, clientId }, 'failure summary not written; will retry');
      }
    }
    return written;
  };

  const windowFor = (spaceId: string, clientId: string, ip: string) => {
    const windowStart = Math.floor(options.clock.now() / WINDOW_MS) * WINDOW_MS;
    let window = windows.get(clientId);
    if (!window || window.windowStart !== windowStart) {
      if (window) void flush((w) => w === window); // its window closed: summarise it now
      if (windows.size >= maxClients) {
        // Full: summarise the oldest window early rather than forget its counts.
        const oldest = windows.keys().next().value!;
        const evicted = windows.get(oldest)!;
        void flush((w) => w === evicted);
      }
      window = {
        spaceId,
        windowStart,
        appended: 0,
        failed: 0,
        refused: 0,
        ips: new Set(),
        ipCount: 0,
      };
      windows.set(clientId, window);
    }
    if (!window.ips.has(ip)) {
      window.ipCount += 1;
      if (window.ips.size < MAX_IPS_LISTED) window.ips.add(ip);
    }
    return window;
  };

  const timer = setInterval(() => {
    const now = options.clock.now();
    void flush((window) => window.windowStart + WINDOW_MS <= now);
  }, options.flushIntervalMs ?? 5000);
  timer.unref();

  return {
    async failed(spaceId, failure, ip) {
      const window = windowFor(spaceId, failure.data.client_id, ip);
      if (decideFailureRecording(window, options.perMinute) === 'record') {
        window.appended += 1;
        await options.events.appendNewStream({
          spaceId,
          streamId: streams.authenticationFailure(failure.eventId),
          events: [failure],
        });
      } else {
        window.failed += 1;
      }
    },
    refused(spaceId, clientId, ip) {
      windowFor(spaceId, clientId, ip).refused += 1;
    },
    flushClosedWindows() {
      const now = options.clock.now();
      return flush((window) => window.windowStart + WINDOW_MS <= now);
    },
    async close() {
      clearInterval(timer);
      await flush(() => true);
    },
    size: () => windows.size,
  };
}
