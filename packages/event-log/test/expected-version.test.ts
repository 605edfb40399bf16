import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppendQueue, AppendQueueFactory } from '../src/batched-appender.js';
import { createEventStore } from '../src/event-store.js';
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

describe("an append's expected version", () => {
  it("'no_stream' refuses a stream that exists, with nothing inline: checked under its lock, never batched", async () => {
    const { db, sent } = standInDatabase(writing());
    const store = createEventStore(db, { listeners: [], batching: { queue: plainQueue } });
    const result = await store.append({
      spaceId: 's',
      streamId: 'metadata-client-x',
      expectedVersion: 'no_stream',
      events: [event()],
    });
    expect(result).toEqual({
      ok: false,
      error: 'version_conflict',
      expected: 'no_stream',
      actual: 1,
    });
    expect(sent[0]).toBe('BEGIN');
    expect(sent[1]).toMatch(/pg_advisory_xact_lock/);
    expect(inserts(sent)).toEqual([]);
  });

  it("'fresh' appends are group-committed: those arriving while a batch is written go out as one INSERT", async () => {
    let open!: () => void;
    const { db, sent } = standInDatabase(writing(new Promise<void>((resolve) => (open = resolve))));
    const store = createEventStore(db, { listeners: [], batching: { queue: plainQueue } });
    const append = () =>
      store.append({
        spaceId: 's',
        streamId: randomUUID(),
        expectedVersion: 'fresh',
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
});
