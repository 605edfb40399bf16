import { describe, expect, it } from 'vitest';
import type { LogPosition, RecordedEvent } from '../src/recorded-event.js';
import { compareLogPositions } from '../src/check/log-order.js';
import { readSealedRanges, type SealedLogReader } from '../src/check/sealed-ranges.js';

const event = (position: number): RecordedEvent => ({
  globalPosition: position,
  transactionId: String(100 + position),
  spaceId: 'shop',
  streamId: `s-${position}`,
  streamPosition: 1,
  eventId: `e-${position}`,
  type: 'test',
  schemaVersion: 1,
  data: {},
  metadata: {},
  recordedAt: new Date(0),
});
const at = (position: number): LogPosition => ({
  transactionId: String(100 + position),
  globalPosition: position,
});

/** Ten events, sealed 1-3 (archived partition 0), 4-7 and 8-10 (partition 1). */
function reader(live: readonly RecordedEvent[], archiveDir?: string): SealedLogReader {
  const seals = [
    { sealNumber: 1, eventCount: 3, end: at(3), partitionStart: 0 },
    { sealNumber: 2, eventCount: 4, end: at(7), partitionStart: 1 },
    { sealNumber: 3, eventCount: 3, end: at(10), partitionStart: 1 },
  ];
  return {
    ...(archiveDir ? { archiveDir } : {}),
    archivedPartitions: async () => new Set([0]),
    seals: async (after, limit) => seals.filter((s) => s.sealNumber > after).slice(0, limit),
    async events(after, limit) {
      const page = live.filter((e) => compareLogPositions(e, after) > 0).slice(0, limit);
      if (page.some((e, i) => page[i + 1]?.globalPosition === e.globalPosition)) {
        throw Object.assign(new Error('repeated'), { position: at(page[0]!.globalPosition) });
      }
      return { events: page, last: page.at(-1) ?? after };
    },
    repeatedKey: (error) =>
      (error as { position?: LogPosition }).position
        ? { position: (error as { position: LogPosition }).position, message: 'repeated' }
        : undefined,
    sealHolding: async (position) =>
      seals.find((s) => compareLogPositions(s.end, position) >= 0)?.sealNumber,
    archivedPartition: async () => ({ events: [1, 2, 3].map(event), filesChecked: 1 }),
  };
}

const all = async (ranges: AsyncIterable<unknown>) => {
  const out = [];
  for await (const range of ranges) out.push(range);
  return out;
};

describe('readSealedRanges', () => {
  const live = [4, 5, 6, 7, 8, 9, 10].map(event);

  it('gives each seal its events, archived ones from the files, a page at a time', async () => {
    const ranges = (await all(readSealedRanges(reader(live, '/archive'), 2))) as Array<{
      sealNumber: number;
      events: RecordedEvent[];
      archived: boolean;
    }>;
    expect(
      ranges.map((r) => [r.sealNumber, r.events.map((e) => e.globalPosition), r.archived]),
    ).toEqual([
      [1, [1, 2, 3], true],
      [2, [4, 5, 6, 7], false],
      [3, [8, 9, 10], false],
    ]);
  });

  it('asks for the archive folder when a partition is archived', async () => {
    const [first] = await all(readSealedRanges(reader(live)));
    expect(first).toMatchObject({ sealNumber: 1, problem: { reason: 'archive_dir_missing' } });
  });

  it('names the seal holding a row slipped in with another position', async () => {
    const slipped = [...live.slice(0, 4), event(8), ...live.slice(4)];
    const ranges = await all(readSealedRanges(reader(slipped, '/archive'), 100));
    expect(ranges.at(-1)).toMatchObject({ sealNumber: 2, problem: { reason: 'event_added' } });
  });
});
