import type { Logger } from 'pino';
import type { Clock } from '../domain/ports.js';
import type { DomainEvent, EventType } from '../domain/events.js';
import { type BudgetWindow, decideBudgetedRecording } from '../domain/budget-window.js';
import type { EventStore } from '#event-log/event-store.js';
import type { NewStream } from '#event-log/stream-ref.js';

/** An event to append on a new stream of its own. */
export interface StreamEvent {
  readonly spaceId: string;
  readonly stream: NewStream;
  readonly event: DomainEvent<EventType>;
}

/** Events an outsider can cause, bounded per key and minute ({@link createEventBudget}). */
export interface EventBudget {
  /** Appends `event` while the key is under its per-minute budget; past it, counts it as `count`. */
  record(key: string, event: StreamEvent, ip: string, count: string, tag?: string): Promise<void>;
  /** Counts an attempt that is never recorded one by one (e.g. refused unchecked). */
  count(key: string, spaceId: string, ip: string, count: string, tag?: string): void;
  /** Writes the summary of every closed window; returns how many. */
  flushClosedWindows(): Promise<number>;
  /** Writes every summary, closed or not (shutdown), and stops the timer. */
  close(): Promise<void>;
  /** Keys with a window open (for /metrics). */
  size(): number;
}

/** A closed window's summary event, on the stream `streamOf` names, in `spaceId`. */
export const summaryOn = (
  event: DomainEvent<EventType> | undefined,
  spaceId: string,
  streamOf: (eventId: string) => NewStream,
): StreamEvent | undefined => event && { spaceId, stream: streamOf(event.eventId), event };

/** What a recorder built on a budget shares with it: flushing, closing and its size. */
export type BudgetedRecorder = Pick<EventBudget, 'flushClosedWindows' | 'close' | 'size'>;

/** What a budget is made of: where it appends, how much a minute, how many keys it holds. */
export interface BudgetOptions {
  readonly events: EventStore;
  readonly perMinute: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly maxKeys?: number;
  readonly flushIntervalMs?: number;
}

interface OpenWindow {
  readonly spaceId: string;
  readonly windowStart: number;
  appended: number;
  readonly counts: Record<string, number>;
  readonly ips: Set<string>;
  ipCount: number;
  readonly tags: Set<string>;
  tagCount: number;
}

const WINDOW_MS = 60_000;
const MAX_LISTED = 50;

/**
 * At most `perMinute` events per key per UTC minute, the rest one summary per window: the log grows
 * by at most perMinute + 1 per key per minute per process, memory by `maxKeys` windows (a full
 * map summarises its oldest early rather than forget its counts). Its appends are written by hand,
 * not through handle(): what they decide is this process's window, not a state any stream holds.
 */
export function createEventBudget(
  options: BudgetOptions & {
    /** The summary of a closed window, or undefined when it counted nothing. */
    readonly summarize: (key: string, window: BudgetWindow) => StreamEvent | undefined;
  },
): EventBudget {
  const windows = new Map<string, OpenWindow>();
  const maxKeys = options.maxKeys ?? 100_000;

  const write = async (key: string, window: OpenWindow) => {
    const summary = options.summarize(key, {
      ...window,
      windowMs: WINDOW_MS,
      ips: [...window.ips],
      tags: [...window.tags],
    });
    if (!summary) return false;
    const { spaceId, stream, event } = summary;
    await options.events.append({ spaceId, stream, events: [event] });
    return true;
  };

  // Writes the summaries of the windows `due` takes, as no request's (each its own request id):
  // never refused past the deadline of the request whose count closed a window.
  const flush = async (due: (window: OpenWindow) => boolean) => {
    const taken = [...windows].filter(([, window]) => due(window));
    for (const [key] of taken) windows.delete(key);
    let written = 0;
    for (const [key, window] of taken) {
      try {
        if (await write(key, window)) written += 1;
      } catch (error) {
        // The database is away: keep the counts for the next flush rather than lose them.
        const current = windows.get(key);
        if (!current) windows.set(key, window);
        else for (const [name, n] of Object.entries(window.counts)) add(current, name, n);
        options.logger.warn({ err: error, key }, 'budget summary not written; will retry');
      }
    }
    return written;
  };

  const add = (window: OpenWindow, count: string, n = 1) => {
    window.counts[count] = (window.counts[count] ?? 0) + n;
  };

  const windowFor = (key: string, spaceId: string, ip: string, tag: string | undefined) => {
    const windowStart = Math.floor(options.clock.now() / WINDOW_MS) * WINDOW_MS;
    let window = windows.get(key);
    if (!window || window.windowStart !== windowStart) {
      if (window) void flush((w) => w === window); // its window closed: summarise it now
      if (windows.size >= maxKeys) {
        const evicted = windows.values().next().value!;
        void flush((w) => w === evicted);
      }
      window = {
        spaceId,
        windowStart,
        appended: 0,
        counts: {},
        ips: new Set(),
        ipCount: 0,
        tags: new Set(),
        tagCount: 0,
      };
      windows.set(key, window);
    }
    if (!window.ips.has(ip)) {
      window.ipCount += 1;
      if (window.ips.size < MAX_LISTED) window.ips.add(ip);
    }
    if (tag !== undefined && !window.tags.has(tag)) {
      window.tagCount += 1;
      if (window.tags.size < MAX_LISTED) window.tags.add(tag);
    }
    return window;
  };

  const timer = setInterval(() => {
    const now = options.clock.now();
    void flush((window) => window.windowStart + WINDOW_MS <= now);
  }, options.flushIntervalMs ?? 5000);
  timer.unref();

  return {
    async record(key, { spaceId, stream, event }, ip, count, tag) {
      const window = windowFor(key, spaceId, ip, tag);
      const decision = decideBudgetedRecording(window, options.perMinute, event);
      if (decision.ok) {
        window.appended += 1;
        await options.events.append({ spaceId, stream, events: decision.events });
      } else {
        add(window, count);
      }
    },
    count(key, spaceId, ip, count, tag) {
      add(windowFor(key, spaceId, ip, tag), count);
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
