import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { uuidv7 } from '../domain/ports.js';
import { decidePauseSink, decideResumeSink } from '../domain/sink/decide.js';
import { createEventStore } from '#event-log/event-store.js';
import type { AppendListener } from '#event-log/event-store.js';
import { postgresSinkWrites } from './sink-writes.js';

/** The deliverer as the actor of the events it records (a sink paused, or answering again). */
export const DELIVERER_ACTOR = `deliverer:${hostname()}`;

/** The deliverer's pause and resume, under the row's lock, so never crossing an admin's. */
export function delivererEvents(db: Kysely<Database>, listeners: readonly AppendListener[] = []) {
  const store = createEventStore(db, {
    writes: (trx) => ({ sinks: postgresSinkWrites(trx) }),
    listeners,
  });
  const metadata = (eventId: string) => ({
    actor: DELIVERER_ACTOR,
    request_id: eventId,
    client_ip: '127.0.0.1',
    user_agent: null,
  });
  return {
    /** Pauses a failing sink; false when it was paused already (or is gone). */
    pause: (sinkId: string, attempts: number, lastError: string | null) =>
      store.transact(async ({ writes: { sinks }, append }) => {
        const eventId = uuidv7();
        const state = await sinks.lockedSink(sinkId);
        const decision = decidePauseSink(
          { eventId, metadata: metadata(eventId), reason: 'failing', attempts, lastError },
          state,
        );
        if (!decision.ok || decision.events.length === 0) return false;
        await append({ ...decision.facts, events: decision.events });
        await sinks.paused(sinkId, { reason: 'failing' });
        return true;
      }),
    /** Resumes a paused sink that answered its probe; false when it was not paused. */
    resume: (sinkId: string) =>
      store.transact(async ({ writes: { sinks }, append }) => {
        const eventId = uuidv7();
        const state = await sinks.lockedSink(sinkId);
        const decision = decideResumeSink(
          { eventId, metadata: metadata(eventId), reason: 'answering' },
          state,
        );
        if (!decision.ok || decision.events.length === 0) return false;
        await append({ ...decision.facts, events: decision.events });
        await sinks.paused(sinkId, false);
        return true;
      }),
  };
}

/** What {@link delivererEvents} returns. */
export type DelivererEvents = ReturnType<typeof delivererEvents>;
