import { describe, expect, it } from 'vitest';
import { accept, refuse } from '../../../src/domain/decision.js';
import { ConflictError, NotFoundError } from '../../../src/errors/errors.js';
import { handle, type Decider } from '../../../src/commands/handle.js';
import type { RecordedEvent } from '#event-log/types.js';
import { keyedStream } from '#event-log/stream-ref.js';
import { createInMemoryEventStore } from '../../support/in-memory-store.js';

// The one command handler, once, on the in-memory event store: a toy counter as its decider.
interface Count {
  readonly by: number;
  readonly stream?: string;
}

const event = (type: string, data: unknown) => ({
  eventId: crypto.randomUUID(),
  type,
  data,
  metadata: {},
});

function counter(
  store: ReturnType<typeof createInMemoryEventStore>,
  options: { then?: 'retry' | 'refuse' | 'settled'; onLoad?: () => Promise<void> } = {},
) {
  const forgotten: number[] = [];
  const written: number[] = [];
  const decider: Decider<Count, number, 'negative' | 'closed'> = {
    stream: (command) => ({ spaceId: 'shop', stream: keyedStream(command.stream ?? 'counter-1') }),
    load: async (command) => {
      const events = store.log.filter((e) => e.streamId === (command.stream ?? 'counter-1'));
      const state = events.reduce(decider.evolve, 0);
      await options.onLoad?.();
      return { state, version: events.length };
    },
    decide: (command, state) => {
      if (command.by < 0) return refuse('negative');
      if (state >= 10) return refuse('closed', [event('counter-closed', {})]);
      return accept(command.by === 0 ? [] : [event('counted', { by: command.by })]);
    },
    evolve: (state, recorded: RecordedEvent) =>
      recorded.type === 'counted' ? state + (recorded.data as { by: number }).by : state,
    refusals: {
      negative: (command) => new NotFoundError(`no count of ${command.by}`),
      closed: () => new NotFoundError('closed'),
    },
    inline: async (_writes, state) => void written.push(state),
    forget: (_command, state) => void forgotten.push(state),
    conflict: { then: options.then ?? 'retry', message: 'counted meanwhile' },
  };
  return { decider, forgotten, written };
}

const given = async (store: ReturnType<typeof createInMemoryEventStore>, ...counts: number[]) => {
  const { decider } = counter(store);
  for (const by of counts) await handle(store.store, decider, { by });
};

describe('handle(decider, command) on the in-memory store', () => {
  it('loads, decides, appends at the version read, writes inline and forgets the new state', async () => {
    const memory = createInMemoryEventStore();
    await given(memory, 2);
    const { decider, forgotten, written } = counter(memory);
    const handled = await handle(memory.store, decider, { by: 3 });
    expect(handled.state).toBe(5);
    expect(handled.events.map((e) => [e.type, e.streamPosition])).toEqual([['counted', 2]]);
    expect(written).toEqual([5]);
    expect(forgotten).toEqual([5]);
  });

  it('a decision of no events appends, writes and forgets nothing', async () => {
    const memory = createInMemoryEventStore();
    await given(memory, 2);
    const { decider, forgotten, written } = counter(memory);
    const handled = await handle(memory.store, decider, { by: 0 });
    expect(handled).toMatchObject({ state: 2, events: [] });
    expect(memory.log).toHaveLength(1);
    expect([...forgotten, ...written]).toEqual([]);
  });

  it("a refusal answers the decider's error for it, with its detail, and appends nothing", async () => {
    const memory = createInMemoryEventStore();
    const { decider } = counter(memory);
    await expect(handle(memory.store, decider, { by: -1 })).rejects.toThrow('no count of -1');
    expect(memory.log).toHaveLength(0);
  });

  it('a refusal that records events appends them, then answers its error', async () => {
    const memory = createInMemoryEventStore();
    await given(memory, 10);
    const { decider } = counter(memory);
    await expect(handle(memory.store, decider, { by: 1 })).rejects.toThrow(NotFoundError);
    expect(memory.log.map((e) => e.type)).toEqual(['counted', 'counter-closed']);
  });

  it('a version conflict is decided once more on the state as it then is', async () => {
    const memory = createInMemoryEventStore();
    await given(memory, 1);
    let loads = 0;
    const { decider } = counter(memory, {
      // Another writer counts between the first load and its append.
      onLoad: async () => {
        if (++loads === 1) await given(memory, 4);
      },
    });
    const handled = await handle(memory.store, decider, { by: 2 });
    expect(loads).toBe(2);
    expect(handled.state).toBe(7);
    expect(memory.log.map((e) => e.streamPosition)).toEqual([1, 2, 3]);
  });

  it('a second conflict, or any with `refuse`, is a ConflictError with the message', async () => {
    for (const [then, conflicts] of [
      ['retry', 2],
      ['refuse', 1],
    ] as const) {
      const memory = createInMemoryEventStore();
      await given(memory, 1);
      let loads = 0;
      const { decider } = counter(memory, {
        then,
        onLoad: async () => {
          if (++loads <= conflicts) await given(memory, 1);
        },
      });
      const answer = handle(memory.store, decider, { by: 2 });
      await expect(answer).rejects.toThrow(ConflictError);
      await expect(answer).rejects.toThrow('counted meanwhile');
      expect(loads).toBe(conflicts);
    }
  });

  it('with `settled`, a conflict answers as if nothing changed', async () => {
    const memory = createInMemoryEventStore();
    await given(memory, 1);
    const { decider, forgotten } = counter(memory, {
      then: 'settled',
      onLoad: () => given(memory, 1),
    });
    const handled = await handle(memory.store, decider, { by: 2 });
    expect(handled).toMatchObject({ state: 1, events: [] });
    expect(forgotten).toEqual([]);
  });

  it('a stream not yet there is appended at no version', async () => {
    const memory = createInMemoryEventStore();
    const { decider } = counter(memory);
    await handle(memory.store, decider, { by: 1, stream: 'counter-2' });
    expect(memory.log.map((e) => [e.streamId, e.streamPosition])).toEqual([['counter-2', 1]]);
  });

  it('prepare runs after an accepted decision and before the append: what it made is answered, a throw appends nothing', async () => {
    const memory = createInMemoryEventStore();
    const { decider } = counter(memory);
    const prepared: number[] = [];
    const signing = {
      ...decider,
      prepare: async ({ by }: Count) => {
        if (by > 5) throw new ConflictError('could not be made');
        prepared.push(memory.log.length);
        return { made: `made ${by}` };
      },
    };
    expect((await handle(memory.store, signing, { by: 2 })).made).toBe('made 2');
    await expect(handle(memory.store, signing, { by: 6 })).rejects.toThrow('could not be made');
    await expect(handle(memory.store, signing, { by: -1 })).rejects.toThrow('no count of -1');
    expect(prepared).toEqual([0]);
    expect(memory.log).toHaveLength(1);
  });
});
