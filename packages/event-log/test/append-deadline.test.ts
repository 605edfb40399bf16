import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deadlineOf,
  deadlinesHeld,
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

  it('a transaction is held to the deadline of the request its appends name', async () => {
    const { db, sent } = standInDatabase(writing(async () => undefined, []));
    const late = deadline();
    late.state.passed = true;
    const asked: unknown[] = [];
    const store = createEventStore(db, {
      listeners: [],
      deadlineOf: (input) => {
        asked.push(input.events[0]?.metadata.request_id);
        return input.events[0]?.metadata.request_id === 'late' ? late.value : undefined;
      },
    });
    const named = (requestId: string) => ({ ...event(), metadata: { request_id: requestId } });
    const appending = (requestId: string) =>
      store.transact(async ({ append }) =>
        append({ spaceId: 's', stream: newStream(requestId), events: [named(requestId)] }),
      );
    await expect(appending('late')).rejects.toMatchObject({ reason: 'deadline_passed' });
    await expect(appending('on-time')).resolves.toHaveLength(1);
    expect(asked).toEqual(['late', 'on-time']);
    expect(sent.filter((s) => s === 'COMMIT')).toHaveLength(1);
  });

  it("is found by its request's id while the handling runs, and by no other id", async () => {
    let refused = 0;
    const request = new RequestDeadline(() => (refused += 1));
    const held = deadlinesHeld();
    let finish!: () => void;
    const handling = withDeadline(
      'request-1',
      request,
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    expect(deadlineOf('request-1')).toBe(request);
    // Another request's id, or none, finds nothing.
    expect(deadlineOf('request-2')).toBeUndefined();
    expect(deadlineOf(undefined)).toBeUndefined();
    // Answered 503 while the handler still runs: its later writes are still refused.
    request.pass();
    expect(refused).toBe(1);
    expect(deadlineOf('request-1')?.begin()).toBe(false);
    finish();
    await handling;
    expect(deadlineOf('request-1')).toBeUndefined();
    expect(deadlinesHeld()).toBe(held);
  });

  it('lets go of a deadline whose handling failed, at once or later', async () => {
    const held = deadlinesHeld();
    const request = new RequestDeadline(() => {});
    await expect(
      withDeadline('request-3', request, () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    expect(() =>
      withDeadline('request-4', request, () => {
        throw new Error('at once');
      }),
    ).toThrow('at once');
    expect(deadlineOf('request-3')).toBeUndefined();
    expect(deadlineOf('request-4')).toBeUndefined();
    expect(deadlinesHeld()).toBe(held);
  });

  it('holds back the refusal for a write begun before the deadline; once committed, none comes', () => {
    let refused = 0;
    const writing = new RequestDeadline(() => (refused += 1));
    expect(writing.begin()).toBe(true);
    writing.pass();
    expect(refused).toBe(0);
    writing.end(true);
    expect(refused).toBe(0);
    expect(writing.begin()).toBe(true);
  });
});
