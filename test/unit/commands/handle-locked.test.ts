import { describe, expect, it } from 'vitest';
import { accept, refuse } from '../../../src/domain/decision.js';
import type { EventStore } from '#event-log/event-store.js';
import { NotFoundError } from '../../../src/errors/errors.js';
import { handleLocked, type LockedDecider, type Placed } from '../../../src/commands/handle.js';
import { createInMemoryEventStore } from '../../support/in-memory-store.js';
import { newStream } from '#event-log/stream-ref.js';

// handleLocked on the in-memory log, its declared writes a map: a toy switch's row.
interface Rows {
  readonly rows: Map<string, boolean>;
  readonly reads: string[];
}

function given(on: boolean) {
  const memory = createInMemoryEventStore();
  const rows: Rows = { rows: new Map([['switch-1', on]]), reads: [] };
  const store: Pick<EventStore<Rows>, 'transact'> = {
    transact: (work) => memory.store.transact(({ append }) => work({ writes: rows, append })),
  };
  return { memory, rows, store };
}

const turnOn: LockedDecider<{ id: string }, boolean | undefined, 'no_switch', Placed, Rows> = {
  load: async (writes, { id }) => {
    writes.reads.push(id);
    return writes.rows.get(id);
  },
  decide: ({ id }, on) => {
    if (on === undefined) return refuse('no_switch');
    const where = { spaceId: 'shop', stream: newStream(`switch-${crypto.randomUUID()}`) };
    if (on) return accept([], where);
    return accept(
      [{ eventId: crypto.randomUUID(), type: 'switched-on', data: { id }, metadata: {} }],
      where,
    );
  },
  stream: (_command, where) => where,
  refusals: { no_switch: ({ id }) => new NotFoundError(`no ${id}`) },
  inline: async (writes, { id }) => void writes.rows.set(id, true),
};

describe('handleLocked(store, decider, command, answer)', () => {
  it('loads through the writes, appends to the stream the decision names, writes inline, answers', async () => {
    const { memory, rows, store } = given(false);
    const answer = await handleLocked(store, turnOn, { id: 'switch-1' }, async (writes, done) => ({
      changed: done.changed,
      row: writes.rows.get('switch-1'),
    }));
    expect(answer).toEqual({ changed: true, row: true });
    expect(rows.reads).toEqual(['switch-1']);
    expect(memory.log.map((e) => [e.type, e.streamPosition])).toEqual([['switched-on', 1]]);
  });

  it('no events: nothing appended or written, answered all the same', async () => {
    const { memory, store } = given(true);
    const changed = await handleLocked(
      store,
      turnOn,
      { id: 'switch-1' },
      async (_w, done) => done.changed,
    );
    expect(changed).toBe(false);
    expect(memory.log).toHaveLength(0);
  });

  it("a refusal is the decider's error, nothing appended", async () => {
    const { memory, store } = given(false);
    await expect(
      handleLocked(store, turnOn, { id: 'switch-2' }, async () => undefined),
    ).rejects.toThrow('no switch-2');
    expect(memory.log).toHaveLength(0);
  });
});
