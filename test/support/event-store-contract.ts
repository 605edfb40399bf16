import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '#event-log/event-store.js';
import type { NewEvent } from '#event-log/types.js';
import { keyedStream, newStream, type StreamRef } from '#event-log/stream-ref.js';
import type { InlineWrites } from '../../src/projections/inline-writes.js';

/** A store under test, and how to read back the stream positions it holds for a stream. */
export interface StoreUnderTest {
  readonly store: EventStore<InlineWrites>;
  streamPositions(streamId: string): Promise<number[]>;
}

/** A stream of each kind, named apart. */
const KINDS = { new: newStream, keyed: keyedStream } as const;
const named = (kind: keyof typeof KINDS = 'keyed') => KINDS[kind](`contract-${randomUUID()}`);

const event = (data: Record<string, unknown> = {}): NewEvent => ({
  eventId: randomUUID(),
  type: 'test-event',
  data,
  metadata: { actor: 'test' },
});

/**
 * The event store port's contract, run against Postgres (test/integration/event-log/event-store.test.ts)
 * and the in-memory store (test/unit/in-memory-store.test.ts): handler tests on the in-memory
 * store hold for Postgres only as far as the two agree, and this is where they are made to.
 */
export function eventStoreContract(name: string, make: () => StoreUnderTest): void {
  describe(`the event store port: ${name}`, () => {
    it('lets exactly one of many concurrent appends at the same expected version win', async () => {
      const { store, streamPositions } = make();
      const stream = named();
      await store.append({ spaceId: 's', stream, events: [event()] });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.append(
            { spaceId: 's', stream, expectedVersion: 1, events: [event({ i })] },
            async () => {},
          ),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      for (const loser of results.filter((result) => !result.ok)) {
        expect(loser).toEqual({ ok: false, error: 'version_conflict', expected: 1, actual: 2 });
      }
      expect(await streamPositions(stream.streamId)).toEqual([1, 2]);
    });

    it('writes nothing when the expected version is wrong', async () => {
      const { store, streamPositions } = make();
      const stream = named();
      const result = await store.append({
        spaceId: 's',
        stream,
        expectedVersion: 3,
        events: [event(), event()],
      });
      expect(result).toEqual({ ok: false, error: 'version_conflict', expected: 3, actual: 0 });
      expect(await streamPositions(stream.streamId)).toEqual([]);
    });

    it.each(['new', 'keyed'] as const)(
      'returns the originals when an append to a %s stream is retried with the same event ids',
      async (kind) => {
        const { store, streamPositions } = make();
        const stream = named(kind);
        const events = [event({ n: 1 }), event({ n: 2 })];
        const first = await store.append({ spaceId: 's', stream, events });
        const retry = await store.append({ spaceId: 's', stream, events });
        expect(first).toMatchObject({ ok: true, duplicate: false });
        expect(retry).toMatchObject({ ok: true, duplicate: true });
        if (!first.ok || !retry.ok) throw new Error('unreachable');
        expect(retry.events.map((e) => e.globalPosition)).toEqual(
          first.events.map((e) => e.globalPosition),
        );
        expect(await streamPositions(stream.streamId)).toEqual([1, 2]);
      },
    );

    it.each(['new', 'keyed'] as const)(
      'refuses a second start of a %s stream (a new one reused), inline writes or not',
      async (kind) => {
        const { store, streamPositions } = make();
        const stream = named(kind);
        await store.append({ spaceId: 's', stream, events: [event()] });
        const again = { spaceId: 's', stream, events: [event()] };
        const conflict = { ok: false, error: 'version_conflict', expected: 0, actual: 1 };
        expect(await store.append(again)).toEqual(conflict);
        expect(await store.append({ ...again, events: [event()] }, async () => {})).toEqual(
          conflict,
        );
        expect(await streamPositions(stream.streamId)).toEqual([1]);
      },
    );

    it('refuses, writing nothing, an append whose stream ref the registry did not make', async () => {
      const { store, streamPositions } = make();
      const { streamId } = named('new');
      const forged = [{ streamId }, JSON.parse(JSON.stringify(newStream(streamId)))];
      for (const stream of forged as StreamRef[]) {
        await expect(store.append({ spaceId: 's', stream, events: [event()] })).rejects.toThrow(
          /not made by newStream or keyedStream/,
        );
        await expect(
          store.append({ spaceId: 's', stream, events: [event()] }, async () => {}),
        ).rejects.toThrow(/not made by newStream or keyedStream/);
      }
      expect(await streamPositions(streamId)).toEqual([]);
    });

    it('stores nothing when an inline projection fails, and commits its writes with the events otherwise', async () => {
      const { store, streamPositions } = make();
      const failing = named();
      await expect(
        store.append({ spaceId: 's', stream: failing, events: [event()] }, async () => {
          throw new Error('projection failed');
        }),
      ).rejects.toThrow('projection failed');
      expect(await streamPositions(failing.streamId)).toEqual([]);
      const passing = named();
      let handed: readonly unknown[] = [];
      await store.append(
        { spaceId: 's', stream: passing, events: [event()] },
        async (_writes, recorded) => {
          handed = recorded;
        },
      );
      expect(handed).toHaveLength(1);
      expect(await streamPositions(passing.streamId)).toEqual([1]);
    });
  });
}
