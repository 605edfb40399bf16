import type { RecordedEvent } from '../recorded-event.js';
import type { Hash } from '../transparency/merkle.js';

/** A space's share of a sealed range: its events in order, and their leaves. */
export interface SpaceShare {
  readonly events: RecordedEvent[];
  readonly leaves: Hash[];
}

/**
 * Each space's share of a sealed range (`events` in commit-safe order, `leaves` their leaf hashes,
 * the same in the log tree and each space's tree), by space, in the order spaces first appear.
 */
export function spaceShares(
  events: readonly RecordedEvent[],
  leaves: readonly Hash[],
): Map<string, SpaceShare> {
  const bySpace = new Map<string, SpaceShare>();
  events.forEach((event, i) => {
    const share = bySpace.get(event.spaceId) ?? { events: [], leaves: [] };
    share.events.push(event);
    share.leaves.push(leaves[i]!);
    bySpace.set(event.spaceId, share);
  });
  return bySpace;
}

/**
 * A share's record (the log's space range): its sequences, numbered on from the space's last
 * (`previous`; leaf i of its tree is sequence i + 1), with the position and time bounds that find
 * its events again.
 */
export function spaceRange(share: SpaceShare, previous: number) {
  const positions = share.events.map((event) => event.globalPosition);
  const times = share.events.map((event) => event.recordedAt.getTime());
  return {
    first_sequence: previous + 1,
    last_sequence: previous + share.events.length,
    min_position: Math.min(...positions),
    max_position: Math.max(...positions),
    first_recorded_at: new Date(Math.min(...times)),
    last_recorded_at: new Date(Math.max(...times)),
  };
}
