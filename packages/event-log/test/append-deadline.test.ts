import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  currentDeadline,
  outsideDeadline,
  RequestDeadline,
  withDeadline,
  type AppendDeadline,
} from '../src/append-deadline.js';
import type { AppendQueue, AppendQueueFactory } from '../src/batched-appender.js';
import { createEventStore } from '../src/event-store.js';
import { keyedStream, newStream } from '../src/stream-ref.js';
import { standInDatabase, type Answer } from './stand-in-driver.js';

const plainQueue: AppendQueueFactory = <Item>(): AppendQueue<Item> => {
  const items: Item[] = [];
  return {
    offer: (_spaceId, item) => items.push(item) > 0,
    take: (max) => items.splice(0, max),
    size: () => items.length,
  };
};

/** A request's deadline as the store sees it: `passed` set by the test, what it was told kept. */
function deadline() {
  const told: string[] = [];
  const state = { passed: false, written: false };
  const value: AppendDeadline = {
    begin: () => {
      told.push('begin');
      return !state.passed || state.written;
    },
    end: (written) => {
      told.push(written ? 'written' : 'not written');
      state.written ||= written;
    },
  };
  return { value, told, state };
}

const event = () => ({ eventId: randomUUID(), type: 't', data: {}, metadata: {} });
const rowsOf = (parameters: readonly unknown[]) =>
  JSON.parse(String(parameters[0])) as Array<{ event_id: string }>;

/** Every INSERT answered with its rows written, after `gate`; the event ids written kept. */
function writing(gate: () => Promise<void>, written: string[]): Answer {
  let position = 0;
  return async (query) => {
    if (!query.sql.includes('INSERT INTO events')) return [];
    await gate();
    return rowsOf(query.parameters).map((row) => {
      written.push(row.event_id);
      return {
        event_id: row.event_id,
        global_position: ++position,
        transaction_id: '1',
        recorded_at: new Date(0),
      };
    });
  };
}

describe("an append and its request's deadline", () => {
  it('a batch member past its deadline is not written; the others are, and told so', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const written: string[] = [];
    const { db } = standInDatabase(writing(() => gate, written));
    let current: AppendDeadline | undefined;
    const store = createEventStore(db, {
      listeners: [],
      batching: { queue: plainQueue },
      deadlineOf: () => current,
    });
    const append = (request: ReturnType<typeof deadline>) => {
      current = request.value;
      const one = event();
      return {
        id: one.eventId,
        result: store.append({
          spaceId: 's',
          stream: newStream(randomUUID()),
          events: [one],
        }),
      };
    };
    const first = append(deadline());
    const late = deadline();
    const lateAppend = append(late);
    const onTime = deadline();
    const onTimeAppend = append(onTime);
    // The late request's caller is told no while its append waits for the batch.
    late.state.passed = true;
    open();
    await expect(lateAppend.result).rejects.toMatchObject({ reason: 'deadline_passed' });
    expect((await onTimeAppend.result).ok).toBe(true);
    expect((await first.result).ok).toBe(true);
    expect(written).toEqual([first.id, onTimeAppend.id]);
    expect(late.told).toEqual(['begin']);
    expect(onTime.told).toEqual(['begin', 'written']);
  });

  it('a write begun before the deadline is answered with what it wrote, however late', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const written: string[] = [];
    const { db } = standInDatabase(writing(() => gate, written));
    const request = deadline();
    const store = createEventStore(db, { listeners: [], deadlineOf: () => request.value });
    const appended = store.append({
      spaceId: 's',
      stream: keyedStream('x'),
      events: [event()],
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    request.state.passed = true;
    open();
    expect((await appended).ok).toBe(true);
    expect(request.told).toEqual(['begin', 'written']);
    // Having written, the request may write again: its caller will hear of both.
    expect(
      (
        await store.append({
          spaceId: 's',
          stream: keyedStream('y'),
          events: [event()],
        })
      ).ok,
    ).toBe(true);
    expect(written).toHaveLength(2);
  });

  it('a transaction past its deadline is rolled back before its commit', async () => {
    const { db, sent } = standInDatabase(writing(async () => undefined, []));
    const request = deadline();
    request.state.passed = true;
    const store = createEventStore(db, { listeners: [], deadlineOf: () => request.value });
    await expect(
      store.transact(async ({ append }) =>
        append({ spaceId: 's', stream: newStream('z'), events: [event()] }),
      ),
    ).rejects.toMatchObject({ reason: 'deadline_passed' });
    expect(sent.at(-1)).toBe('ROLLBACK');
    expect(sent).not.toContain('COMMIT');
  });

  it("is the request's own: work it runs as no request's (a summary of many) is not held to it", () => {
    let refused = 0;
    const request = new RequestDeadline(() => (refused += 1));
    withDeadline(request, () => {
      request.pass();
      expect(refused).toBe(1);
      expect(currentDeadline()?.begin()).toBe(false);
      expect(outsideDeadline(() => currentDeadline())).toBeUndefined();
    });
    // A write begun before the deadline holds the refusal back; once committed, none comes.
    const writing = new RequestDeadline(() => (refused += 1));
    expect(writing.begin()).toBe(true);
    writing.pass();
    writing.end(true);
    expect(refused).toBe(1);
    expect(writing.begin()).toBe(true);
  });
});
