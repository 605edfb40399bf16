import type { RecordedEvent } from '../recorded-event.js';

/** A partition of the log by time: [starts_at, ends_at). */
export interface TimePartition {
  readonly starts_at: Date;
  readonly ends_at: Date;
}

/**
 * The longest run from the start of `events` recorded in the partition of the first, and where
 * that partition starts (`-infinity` for the first, open-ended one): a seal never spans two
 * partitions, so a partition can be archived with its seals whole.
 */
export function withinOnePartition(
  events: readonly RecordedEvent[],
  partitions: readonly TimePartition[],
): { readonly events: readonly RecordedEvent[]; readonly partitionStart: Date | string } {
  const holding = (at: Date) =>
    partitions.find((p) => Number(p.starts_at) <= at.getTime() && at.getTime() < Number(p.ends_at));
  const first = holding(events[0]!.recordedAt);
  if (!first) return { events, partitionStart: '-infinity' };
  const end = events.findIndex((event) => holding(event.recordedAt) !== first);
  const start = Number(first.starts_at);
  return {
    events: end === -1 ? events : events.slice(0, end),
    partitionStart: Number.isFinite(start) ? new Date(start) : '-infinity',
  };
}
