import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppendQueue, AppendQueueFactory } from '../src/batched-appender.js';
import { createEventStore } from '../src/event-store.js';
import { keyedStream, newStream, type StreamRef } from '../src/stream-ref.js';
import { standInDatabase, type Answer } from './stand-in-driver.js';

/** A first-in first-out queue with no bounds: the log's tests need no fairness. */
const plainQueue: AppendQueueFactory = <Item>(): AppendQueue<Item> => {
  const items: Item[] = [];
  return {
    offer: (_spaceId, item) => items.push(item) > 0,
    take: (max) => items.splice(0, max),
    size: () => items.length,
  };
};

const event = () => ({ eventId: randomUUID(), type: 't', data: {}, metadata: {} });

/** The INSERT's rows as the one JSON parameter carries them. */
const rowsOf = (parameters: readonly unknown[]) =>
  JSON.parse(String(parameters[0])) as Array<{ event_id: string }>;

/** Answers every INSERT with each row written, after `gate` opens; a stream's version is 1. */
function writing(gate: Promise<void> = Promise.resolve()): Answer {
  let position = 0;
  return async (query) => {
    if (query.sql.includes('INSERT INTO events')) {
      await gate;
      return rowsOf(query.parameters).map((row) => ({
        event_id: row.event_id,
        global_position: (position += 1),
        transaction_id: '1',
        recorded_at: new Date(0),
      }));
    }
    if (query.sql.includes('max("stream_position")')) return [{ version: 1 }];
    return [];
  };
}

const inserts = (sent: readonly string[]) => sent.filter((sql) => sql.includes('INSERT INTO'));

describe('how a stream is written, as its ref says', () => {
  it('a keyed stream is checked under its lock, with nothing inline, never batched: one that exists is refused', async () => {
    const { db, sent } = standInDatabase(writing());
    const store = createEventStore(db, { listeners: [], batching: { queue: plainQueue } });
    const result = await store.append({
      spaceId: 's',
      stream: keyedStream('metadata-client-x'),
      events: [event()],
    });
    expect(result).toEqual({ ok: false, error: 'version_conflict', expected: 0, actual: 1 });
    expect(sent[0]).toBe('BEGIN');
    expect(sent[1]).toMatch(/pg_advisory_xact_lock/);
    expect(inserts(sent)).toEqual([]);
  });

  it('new streams are group-committed: those arriving while a batch is written go out as one INSERT', async () => {
    let open!: () => void;
    const { db, sent } = standInDatabase(writing(new Promise<void>((resolve) => (open = resolve))));
    const store = createEventStore(db, { listeners: [], batching: { queue: plainQueue } });
    const append = () =>
      store.append({
        spaceId: 's',
        stream: newStream(randomUUID()),
        events: [event()],
      });
    const first = append();
    const waiting = [append(), append(), append()];
    expect(store.queued()).toBe(3);
    open();
    const results = await Promise.all([first, ...waiting]);
    expect(results.every((result) => result.ok && !result.duplicate)).toBe(true);
    expect(inserts(sent)).toHaveLength(2);
    expect(sent.some((sql) => /advisory/.test(sql))).toBe(false);
    expect(sent).not.toContain('BEGIN');
  });

  it('a ref no constructor made is refused before anything is written, in and out of a transaction', async () => {
    const { db, sent } = standInDatabase(writing());
    const store = createEventStore(db, { listeners: [], batching: { queue: plainQueue } });
    const forged = { streamId: 'token-x' } as unknown as StreamRef;
    const refused = /not made by newStream or keyedStream/;
    await expect(store.append({ spaceId: 's', stream: forged, events: [event()] })).rejects.toThrow(
      refused,
    );
    await expect(
      store.transact(({ append }) => append({ spaceId: 's', stream: forged, events: [event()] })),
    ).rejects.toThrow(refused);
    expect(inserts(sent)).toEqual([]);
  });
});
