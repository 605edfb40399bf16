import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveKey, type ArchivedBlock } from '../src/archive/blocks.js';
import { findArchivedLeaf, withArchivedStart } from '../src/archive/archived-tree.js';
import { writePartition } from '../src/archive/write-partition.js';
import { eventLeaves } from '../src/event-leaf.js';
import { EXPORT_FORMAT, type ExportLine } from '../src/export-lines.js';
import type { RecordedEvent } from '../src/recorded-event.js';
import { TILE } from '../src/transparency/frontier.js';

const leaves = eventLeaves((event) => event);
const event = (sequence: number): RecordedEvent => ({
  globalPosition: sequence,
  transactionId: String(sequence),
  spaceId: 'shop',
  streamId: `token-${sequence}`,
  streamPosition: 1,
  eventId: `e-${sequence}`,
  type: 'test',
  schemaVersion: 1,
  data: { n: sequence },
  metadata: {},
  recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence % 60)),
});
const events = Array.from({ length: TILE + 40 }, (_, i) => event(i + 1));

async function* lines(): AsyncGenerator<ExportLine> {
  yield { type: 'format', version: EXPORT_FORMAT };
  for (const [i, stored] of events.entries()) {
    const json = JSON.parse(leaves.leafEntry(stored).toString('utf8')) as Record<string, unknown>;
    yield { type: 'event', sequence: i + 1, event: json };
  }
}

describe("a partition's archive files", () => {
  it('are written, verified, and read back through their index as the same leaves', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'archive-'));
    const partition = {
      name: 'events_p1',
      startsAt: new Date('2026-01-01T00:00:00Z'),
      endsAt: new Date('2026-01-01T00:01:00Z'),
    };
    const share = { spaceId: 'shop', events: events.length, lines };
    const written = await writePartition(dir, partition, [share], leaves);
    if (typeof written === 'string') throw new Error(written);
    expect(written.manifest.events).toBe(events.length);
    const [file] = written.written;
    // One gzip member per tile: a proof reads one of them.
    expect(file!.blocks.map((b) => [b.first_sequence, b.last_sequence])).toEqual([
      [1, TILE],
      [TILE + 1, TILE + 40],
    ]);
    const blocks: ArchivedBlock[] = file!.blocks.map((b) => ({ ...b, file: file!.entry.file }));
    const archive = {
      dir,
      leaves,
      index: {
        archivedThrough: async () => events.length,
        blocks: async (_: string, from: number, to: number) =>
          blocks.filter((b) => b.last_sequence >= from && b.first_sequence <= to),
        sequenceOf: async (_: string, which: { eventId: string } | { streamId: string }) =>
          file!.keys.find((k) => k.key.equals(archiveKey(which)))?.sequence,
      },
    };
    const live = { id: 'shop', leaves: async () => [] };
    const tree = withArchivedStart(live, archive);
    expect(await tree.leaves(TILE - 1, TILE + 2)).toEqual(
      events.slice(TILE - 2, TILE + 2).map(leaves.eventLeafHash),
    );
    const found = await findArchivedLeaf(archive, 'shop', { streamId: 'token-7' });
    expect(found?.index).toBe(6);
    expect(found?.hash).toEqual(leaves.eventLeafHash(events[6]!));
    expect(await findArchivedLeaf(archive, 'shop', { eventId: 'e-nowhere' })).toBeUndefined();
  });

  it('are refused, named, when a share holds fewer events than the partition', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'archive-'));
    const partition = { name: 'events_p2', startsAt: new Date(0), endsAt: new Date(60_000) };
    const share = { spaceId: 'shop', events: events.length + 1, lines };
    expect(await writePartition(dir, partition, [share], leaves)).toMatch(
      /holds \d+ events of the \d+ in the partition/,
    );
  });
});
