import type { EventLogTables, LogDatabase } from './table.js';
import { isAfter, logHead, readLog } from './read-log.js';
import type { LogPosition, RecordedEvent } from './types.js';

/** A reader of one space's events that the shared poll feeds. */
export interface LogTailReader {
  readonly spaceId: string;
  /** The space's next events, in commit-safe order, none at or before where it joined. */
  deliver(events: readonly RecordedEvent[]): void;
}

/**
 * One poll of the log for every live reader of a process: each tick reads the new events of the
 * spaces being followed in one query, and hands each reader its space's. A reader that starts
 * behind the poll catches up by itself, then joins.
 */
export interface LogTail {
  /** Where the shared poll stands; undefined while nobody follows. */
  position(): LogPosition | undefined;
  /**
   * Joins `reader` from `after`: true when done (every event of its space after `after` will be
   * delivered, in order), false when it must first read up to position() by itself, or wait for
   * the tick under way to end (try again after {@link settled}).
   */
  join(reader: LogTailReader, after: LogPosition): boolean;
  leave(reader: LogTailReader): void;
  /** Resolves when no tick is under way. */
  settled(): Promise<void>;
  /** Readers following now. */
  size(): number;
  /** False once closed (the process is stopping): nobody may join. */
  isOpen(): boolean;
  close(): void;
}

/** Creates the shared poll; it runs only while someone follows. */
export function createLogTail<DB extends EventLogTables>(
  db: LogDatabase<DB>,
  options: {
    readonly pollMs: number;
    readonly pageSize: number;
    readonly failed: (error: unknown) => void;
  },
): LogTail {
  const readers = new Map<LogTailReader, { after: LogPosition }>();
  let at: LogPosition | undefined;
  let ticking: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const schedule = () => {
    if (closed || timer || readers.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      ticking = tick().finally(() => {
        ticking = undefined;
        schedule();
      });
    }, options.pollMs);
  };

  const tick = async () => {
    if (!at || readers.size === 0) return;
    const from = at;
    const spaceIds = [...new Set([...readers.keys()].map((reader) => reader.spaceId))];
    try {
      // The head first: everything up to it has settled, so the read after sees all of it, and
      // the poll can move past spaces nobody follows.
      const head = await logHead(db);
      const page = await readLog(db, {
        after: from,
        through: head,
        limit: options.pageSize,
        spaceIds,
      });
      for (const [reader, state] of readers) {
        const mine = page.events.filter(
          (event) => event.spaceId === reader.spaceId && isAfter(event, state.after),
        );
        if (mine.length > 0) {
          state.after = mine.at(-1)!;
          reader.deliver(mine);
        }
      }
      const full = page.events.length === options.pageSize;
      at = full ? page.last : isAfter(head, from) ? head : from;
    } catch (error) {
      options.failed(error); // the database is away: the next tick tries again
    }
  };

  return {
    position: () => (readers.size === 0 ? undefined : at),
    join(reader, after) {
      if (closed || ticking) return false;
      if (readers.size === 0) at = after;
      else if (isAfter(at!, after)) return false;
      readers.set(reader, { after });
      schedule();
      return true;
    },
    leave: (reader) => void readers.delete(reader),
    settled: () => ticking ?? Promise.resolve(),
    size: () => readers.size,
    isOpen: () => !closed,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      readers.clear();
    },
  };
}
