import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/recorded-event.js';
import { leafHash } from '../src/transparency/merkle.js';
import { withinOnePartition } from '../src/archive/within-one-partition.js';
import { spaceRange, spaceShares } from '../src/tree/space-shares.js';

const event = (position: number, spaceId: string, at: string): RecordedEvent => ({
  globalPosition: position,
  transactionId: String(position),
  spaceId,
  streamId: `s-${position}`,
  streamPosition: 1,
  eventId: `e-${position}`,
  type: 'test',
  schemaVersion: 1,
  data: {},
  metadata: {},
  recordedAt: new Date(at),
});

const events = [
  event(1, 'a', '2026-01-01T00:00:10Z'),
  event(2, 'b', '2026-01-01T00:00:20Z'),
  event(3, 'a', '2026-01-01T00:00:30Z'),
  event(4, 'a', '2026-01-01T00:01:10Z'),
];

describe('a seal within one partition', () => {
  const minute = (m: number) => ({
    starts_at: new Date(`2026-01-01T00:0${m}:00Z`),
    ends_at: new Date(`2026-01-01T00:0${m + 1}:00Z`),
  });

  it('stops at the first event of the next partition and names where its own starts', () => {
    const run = withinOnePartition(events, [minute(0), minute(1)]);
    expect(run.events.map((e) => e.globalPosition)).toEqual([1, 2, 3]);
    expect(run.partitionStart).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('takes everything into the open-ended first partition when none holds the first', () => {
    expect(withinOnePartition(events, [minute(1)])).toEqual({
      events,
      partitionStart: '-infinity',
    });
  });
});

describe("each space's share of a seal", () => {
  it('keeps each space its events and leaves in order, numbered on from its last', () => {
    const leaves = events.map((e) => leafHash(Buffer.from(e.eventId)));
    const shares = spaceShares(events, leaves);
    expect([...shares.keys()]).toEqual(['a', 'b']);
    expect(shares.get('a')!.leaves).toEqual([leaves[0], leaves[2], leaves[3]]);
    expect(spaceRange(shares.get('a')!, 7)).toEqual({
      first_sequence: 8,
      last_sequence: 10,
      min_position: 1,
      max_position: 4,
      first_recorded_at: new Date('2026-01-01T00:00:10Z'),
      last_recorded_at: new Date('2026-01-01T00:01:10Z'),
    });
  });
});
