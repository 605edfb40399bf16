import { describe, expect, it } from 'vitest';
import { eventLeaves } from '../src/event-leaf.js';
import type { TreeExportLine } from '../src/export-lines.js';
import type { RecordedEvent } from '../src/recorded-event.js';
import { leafHash } from '../src/transparency/merkle.js';
import { exportSpace, type SpaceExportSource } from '../src/space-export.js';

const leaves = eventLeaves((event) => event);
const event = (sequence: number, second: number): RecordedEvent => ({
  globalPosition: 10 + sequence,
  transactionId: String(10 + sequence),
  spaceId: 'shop',
  streamId: `s-${sequence}`,
  streamPosition: 1,
  eventId: `e-${sequence}`,
  type: 'test',
  schemaVersion: 1,
  data: {},
  metadata: {},
  recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)),
});

/** Sequences 1-3 in one seal, 4-5 in the next; 2 was traced. */
const source: SpaceExportSource = {
  archived: async () => [],
  async seals(after) {
    const seals = [
      { firstSequence: 1, lastSequence: 3, events: [event(1, 1), event(2, 2), event(3, 3)] },
      { firstSequence: 4, lastSequence: 5, events: [event(4, 4), event(5, 50)] },
    ].filter((seal) => seal.lastSequence > after);
    return seals.slice(0, 1).map((seal) => ({
      ...seal,
      events: async () => ({
        events: seal.events,
        traces: new Map([[12, { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) }]]),
      }),
    }));
  },
  frontier: async (size) => ({ size, nodes: [{ level: 0, hash: leafHash(Buffer.from('x')) }] }),
  heads: async (from, to) => [{ size: to, note: `head ${from}..${to}\n` }],
};

describe('exportSpace', () => {
  it('writes the events of the range in sequence order after the frontier, then the heads', async () => {
    const lines: TreeExportLine[] = [];
    const range = { from: new Date('2026-01-01T00:00:02Z'), to: new Date('2026-01-01T00:00:10Z') };
    for await (const line of exportSpace(source, leaves, range)) lines.push(line);
    expect(lines.map((line) => line.type)).toEqual([
      'format',
      'frontier',
      'event',
      'event',
      'event',
      'tree-head',
    ]);
    expect(lines[1]).toMatchObject({ tree_size: 1 });
    const events = lines.filter((line) => line.type === 'event');
    expect(events.map((line) => line.sequence)).toEqual([2, 3, 4]);
    expect(events[0]!.trace).toEqual({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) });
    expect(events[1]!.trace).toBeUndefined();
    expect(events[0]!.event).toEqual(JSON.parse(leaves.leafEntry(event(2, 2)).toString('utf8')));
    expect(lines.at(-1)).toEqual({ type: 'tree-head', tree_size: 4, checkpoint: 'head 2..4\n' });
  });

  it('ends at throughSequence (a signed head) and reads no seal past it', async () => {
    const read: number[] = [];
    const counting: SpaceExportSource = {
      ...source,
      async seals(after, limit) {
        const seals = await source.seals(after, limit);
        read.push(...seals.map((seal) => seal.firstSequence));
        return seals;
      },
    };
    const lines: TreeExportLine[] = [];
    const range = {
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-01T00:01:00Z'),
      throughSequence: 3,
    };
    for await (const line of exportSpace(counting, leaves, range)) lines.push(line);
    const events = lines.filter((line) => line.type === 'event');
    expect(events.map((line) => line.sequence)).toEqual([1, 2, 3]);
    expect(lines.at(-1)).toEqual({ type: 'tree-head', tree_size: 3, checkpoint: 'head 1..3\n' });
    expect(read).toEqual([1]);
  });
});
