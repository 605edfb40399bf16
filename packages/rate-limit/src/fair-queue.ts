/** Options of {@link createFairQueue}. */
export interface FairQueueOptions<Item> {
  /** Items allowed to wait; past it new ones are refused at once instead of growing memory. */
  readonly maxQueued: number;
  /**
   * Items of one space allowed to wait: its fair share, so one tenant filling the queue (a
   * stalled database or HSM under its flood) cannot get every other tenant's work refused.
   */
  readonly maxQueuedPerSpace?: number;
  /** An item still waiting after this long is taken out and handed to `expired`. */
  readonly maxWaitMs: number;
  /** Told the items that waited past `maxWaitMs` (they were never taken). */
  readonly expired: (items: readonly Item[]) => void;
}

/**
 * A bounded first-in first-out queue of work done in batches (a group commit, a signer's batches),
 * each item counted against its space's share and given its own deadline: what is stuck ahead of
 * it never holds it longer than `maxWaitMs`.
 */
export interface FairQueue<Item> {
  /** Queues `item` of `spaceId`; false when the queue or the space's share is full. */
  offer(spaceId: string, item: Item): boolean;
  /** Takes up to `max` of the oldest items. */
  take(max: number): Item[];
  /** Items waiting. */
  size(): number;
}

/** A quarter of a queue per space: three tenants flooding together still leave room. */
export function perSpaceShare(maxQueued: number): number {
  return Math.max(1, Math.ceil(maxQueued / 4));
}

interface Entry<Item> {
  readonly spaceId: string;
  readonly since: number;
  readonly item: Item;
}

/** A {@link FairQueue}; a timer runs only while something waits, and never holds the process. */
export function createFairQueue<Item>(options: FairQueueOptions<Item>): FairQueue<Item> {
  const maxQueuedPerSpace = options.maxQueuedPerSpace ?? options.maxQueued;
  const queuedBySpace = new Map<string, number>();
  let queue: Array<Entry<Item>> = [];
  let sweeper: NodeJS.Timeout | undefined;

  const leave = (entries: ReadonlyArray<Entry<Item>>) => {
    for (const { spaceId } of entries) {
      const left = (queuedBySpace.get(spaceId) ?? 1) - 1;
      if (left > 0) queuedBySpace.set(spaceId, left);
      else queuedBySpace.delete(spaceId);
    }
  };

  // While anything waits, expire what waited too long (the batch ahead may be stuck on a stall).
  const sweep = () => {
    const cutoff = Date.now() - options.maxWaitMs;
    const expired = queue.filter((entry) => entry.since <= cutoff);
    if (expired.length > 0) {
      queue = queue.filter((entry) => entry.since > cutoff);
      leave(expired);
      options.expired(expired.map((entry) => entry.item));
    }
    if (queue.length === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return {
    offer(spaceId, item) {
      const ofSpace = queuedBySpace.get(spaceId) ?? 0;
      if (queue.length >= options.maxQueued || ofSpace >= maxQueuedPerSpace) return false;
      queuedBySpace.set(spaceId, ofSpace + 1);
      queue.push({ spaceId, since: Date.now(), item });
      sweeper ??= setInterval(sweep, Math.max(10, options.maxWaitMs / 4)).unref();
      return true;
    },
    take(max) {
      const taken = queue.splice(0, max);
      leave(taken);
      return taken.map((entry) => entry.item);
    },
    size: () => queue.length,
  };
}
