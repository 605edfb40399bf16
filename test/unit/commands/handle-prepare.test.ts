import { describe, expect, it } from 'vitest';
import { accept } from '../../../src/domain/decision.js';
import { handle, type Decider } from '../../../src/commands/handle.js';
import { isNewStream, keyedStream, madeStreamId } from '#event-log/stream-ref.js';
import { streams } from '../../../src/domain/streams.js';
import { createInMemoryEventStore } from '../../support/in-memory-store.js';

// prepare() is the step that spends and signs: on a conflict, nothing it made is answered, and it
// never runs twice for one command.

const event = () => ({ eventId: crypto.randomUUID(), type: 'made', data: {}, metadata: {} });

function signer(then: 'retry' | 'settled') {
  const spent: number[] = [];
  const decider: Decider<{ id: string }, undefined, never, undefined, string> = {
    stream: ({ id }) => ({ spaceId: 's', stream: keyedStream(id) }),
    // Always reads "not there": another process wins the append meanwhile.
    load: () => ({ state: undefined }),
    decide: () => accept([event()]),
    evolve: (s) => s,
    refusals: {},
    prepare: async () => {
      spent.push(1);
      return { made: `token #${spent.length}` };
    },
    conflict: { then, message: 'meanwhile' },
  };
  return { decider, spent };
}

describe('handle() with prepare, on a conflict', () => {
  it('settled: answers nothing made, since nothing of it was appended', async () => {
    const memory = createInMemoryEventStore();
    await memory.store.append({ spaceId: 's', stream: keyedStream('k'), events: [event()] });
    const handled = await handle(memory.store, signer('settled').decider, { id: 'k' });
    expect(handled.events).toEqual([]);
    expect(handled.made).toBeUndefined();
  });

  it('retry: refused after one attempt, so prepare (spend, sign) ran once', async () => {
    const memory = createInMemoryEventStore();
    await memory.store.append({ spaceId: 's', stream: keyedStream('k'), events: [event()] });
    const { decider, spent } = signer('retry');
    await expect(handle(memory.store, decider, { id: 'k' })).rejects.toThrow('meanwhile');
    expect(spent).toHaveLength(1);
  });

  it('awaits a load that answers with any thenable, not only a native promise', async () => {
    const memory = createInMemoryEventStore();
    await memory.store.append({ spaceId: 's', stream: keyedStream('t'), events: [event()] });
    const thenable = {
      then: (resolve: (v: unknown) => void) => resolve({ state: 'read', version: 1 }),
    };
    const decider: Decider<object, string | undefined, never> = {
      stream: () => ({ spaceId: 's', stream: keyedStream('t') }),
      load: () => thenable as unknown as Promise<{ state: string; version: number }>,
      decide: (_c, state) => accept(state === 'read' ? [event()] : []),
      evolve: (s) => s,
      refusals: {},
      conflict: { then: 'refuse', message: 'conflict' },
    };
    expect((await handle(memory.store, decider, {})).events).toHaveLength(1);
  });
});

describe('a stream ref', () => {
  it('loses its kind when copied by a spread or JSON, so an edited copy is refused', () => {
    const spread = { ...streams.token('x'), streamId: 'credential-victim' };
    const revived = JSON.parse(JSON.stringify(streams.token('x'))) as typeof spread;
    for (const copy of [spread, revived]) {
      expect(isNewStream(copy)).toBe(false);
      expect(() => madeStreamId(copy)).toThrow(/not made by newStream or keyedStream/);
    }
    expect(isNewStream(streams.token('x'))).toBe(true);
    expect(madeStreamId(streams.credential('c'))).toBe('credential-c');
  });
});
