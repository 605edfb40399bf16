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
 * A bounded queue of work done in batches (a group commit, a signer's batches), each item counted
 * against its space's share and given its own deadline: what is stuck ahead of it never holds it
 * longer than `maxWaitMs`. First in, first out within a space; batches are taken round-robin
 * between spaces, so one space's flood never stands ahead of another's single item.
 */
export interface FairQueue<Item> {
  /** Queues `item` of `spaceId`; false when the queue or the space's share is full. */
  offer(spaceId: string, item: Item): boolean;
  /** Takes up to `max` items, one per waiting space a round, each space's oldest first. */
  take(max: number): Item[];
  /** Items waiting. */
  size(): number;
}

/** A quarter of a queue per space: three tenants flooding together still leave room. */
export function perSpaceShare(maxQueued: number): number {
  return Math.max(1, Math.ceil(maxQueued / 4));
}

interface Entry<Item> {
  readonly since: number;
  readonly item: Item;
}

/** A {@link FairQueue}; a timer runs only while something waits, and never holds the process. */
export function createFairQueue<Item>(options: FairQueueOptions<Item>): FairQueue<Item> {
  const maxQueuedPerSpace = options.maxQueuedPerSpace ?? options.maxQueued;
  // Each space's items in arrival order; the Map's order is the round-robin's turn order.
  const bySpace = new Map<string, Array<Entry<Item>>>();
  let size = 0;
  let sweeper: NodeJS.Timeout | undefined;

  // While anything waits, expire what waited too long (the batch ahead may be stuck on a stall).
  const sweep = () => {
    const cutoff = Date.now() - options.maxWaitMs;
    const expired: Item[] = [];
    for (const [spaceId, entries] of bySpace) {
      let stale = 0;
      while (stale < entries.length && entries[stale]!.since <= cutoff) stale++;
      if (stale === 0) continue;
      for (const entry of entries.splice(0, stale)) expired.push(entry.item);
      if (entries.length === 0) bySpace.delete(spaceId);
    }
    size -= expired.length;
    if (expired.length > 0) options.expired(expired);
    if (size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return {
    offer(spaceId, item) {
      const entries = bySpace.get(spaceId) ?? [];
      if (size >= options.maxQueued || entries.length >= maxQueuedPerSpace) return false;
      entries.push({ since: Date.now(), item });
      bySpace.set(spaceId, entries);
      size++;
      sweeper ??= setInterval(sweep, Math.max(10, options.maxWaitMs / 4)).unref();
      return true;
    },
    take(max) {
      if (bySpace.size === 1) {
        // One space waiting (the common case): its oldest, in one cut.
        const [spaceId, entries] = bySpace.entries().next().value!;
        const cut = entries.splice(0, max);
        if (entries.length === 0) bySpace.delete(spaceId);
        size -= cut.length;
        return cut.map((entry) => entry.item);
      }
      const taken: Item[] = [];
      while (taken.length < max && size > 0) {
        // One round: each waiting space gives its oldest item, then goes to the back of the turn.
        for (const [spaceId, entries] of [...bySpace]) {
          if (taken.length >= max) break;
          taken.push(entries.shift()!.item);
          size--;
          bySpace.delete(spaceId);
          if (entries.length > 0) bySpace.set(spaceId, entries);
        }
      }
      return taken;
    },
    size: () => size,
  };
}
