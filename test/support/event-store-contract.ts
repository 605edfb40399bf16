import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '#event-log/event-store.js';
import type { NewEvent } from '#event-log/types.js';
import type { InlineWrites } from '../../src/projections/inline-writes.js';

/** A store under test, and how to read back the stream positions it holds for a stream. */
export interface StoreUnderTest {
  readonly store: EventStore<InlineWrites>;
  streamPositions(streamId: string): Promise<number[]>;
}

const event = (data: Record<string, unknown> = {}): NewEvent => ({
  eventId: randomUUID(),
  type: 'test-event',
  data,
  metadata: { actor: 'test' },
});

/**
 * The event store port's contract, run against Postgres (test/integration/event-store.test.ts)
 * and the in-memory store (test/unit/in-memory-store.test.ts): handler tests on the in-memory
 * store hold for Postgres only as far as the two agree, and this is where they are made to.
 */
export function eventStoreContract(name: string, make: () => StoreUnderTest): void {
  describe(`the event store port: ${name}`, () => {
    it('lets exactly one of many concurrent appends at the same expected version win', async () => {
      const { store, streamPositions } = make();
      const streamId = `contract-${randomUUID()}`;
      await store.append({
        spaceId: 's',
        streamId,
        expectedVersion: 'no_stream',
        events: [event()],
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.append(
            { spaceId: 's', streamId, expectedVersion: 1, events: [event({ i })] },
            async () => {},
          ),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      for (const loser of results.filter((result) => !result.ok)) {
        expect(loser).toEqual({ ok: false, error: 'version_conflict', expected: 1, actual: 2 });
      }
      expect(await streamPositions(streamId)).toEqual([1, 2]);
    });

    it('writes nothing when the expected version is wrong', async () => {
      const { store, streamPositions } = make();
      const streamId = `contract-${randomUUID()}`;
      const result = await store.append({
        spaceId: 's',
        streamId,
        expectedVersion: 3,
        events: [event(), event()],
      });
      expect(result).toEqual({ ok: false, error: 'version_conflict', expected: 3, actual: 0 });
      expect(await streamPositions(streamId)).toEqual([]);
    });

    it.each(['fresh', 'no_stream'] as const)(
      'returns the originals when an append at %s is retried with the same event ids',
      async (expectedVersion) => {
        const { store, streamPositions } = make();
        const streamId = `contract-${randomUUID()}`;
        const events = [event({ n: 1 }), event({ n: 2 })];
        const first = await store.append({ spaceId: 's', streamId, expectedVersion, events });
        const retry = await store.append({ spaceId: 's', streamId, expectedVersion, events });
        expect(first).toMatchObject({ ok: true, duplicate: false });
        expect(retry).toMatchObject({ ok: true, duplicate: true });
        if (!first.ok || !retry.ok) throw new Error('unreachable');
        expect(retry.events.map((e) => e.globalPosition)).toEqual(
          first.events.map((e) => e.globalPosition),
        );
        expect(await streamPositions(streamId)).toEqual([1, 2]);
      },
    );

    it.each(['fresh', 'no_stream'] as const)(
      'refuses a second start of a stream at %s, inline writes or not',
      async (expectedVersion) => {
        const { store, streamPositions } = make();
        const streamId = `contract-${randomUUID()}`;
        await store.append({ spaceId: 's', streamId, expectedVersion, events: [event()] });
        const again = { spaceId: 's', streamId, expectedVersion, events: [event()] };
        const conflict = {
          ok: false,
          error: 'version_conflict',
          expected: expectedVersion,
          actual: 1,
        };
        expect(await store.append(again)).toEqual(conflict);
        expect(await store.append({ ...again, events: [event()] }, async () => {})).toEqual(
          conflict,
        );
        expect(await streamPositions(streamId)).toEqual([1]);
      },
    );

    it('stores nothing when an inline projection fails, and commits its writes with the events otherwise', async () => {
      const { store, streamPositions } = make();
      const failing = `contract-${randomUUID()}`;
      await expect(
        store.append(
          { spaceId: 's', streamId: failing, expectedVersion: 'no_stream', events: [event()] },
          async () => {
            throw new Error('projection failed');
          },
        ),
      ).rejects.toThrow('projection failed');
      expect(await streamPositions(failing)).toEqual([]);
      const passing = `contract-${randomUUID()}`;
      let handed: readonly unknown[] = [];
      await store.append(
        { spaceId: 's', streamId: passing, expectedVersion: 'no_stream', events: [event()] },
        async (_writes, recorded) => {
          handed = recorded;
        },
      );
      expect(handed).toHaveLength(1);
      expect(await streamPositions(passing)).toEqual([1]);
    });
  });
}
