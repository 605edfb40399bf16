import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { serviceMetadata, type EventMetadata as Metadata } from '../../domain/events.js';
import { uuidv7 } from '../../domain/ports.js';
import { streams } from '../../domain/streams.js';
import { recordSignalsDelivered } from './signal-deliveries.js';
import { accept } from '../../domain/decision.js';
import {
  decidePauseSink,
  decideResumeSink,
  type SinkRefusal,
  type SinkState,
} from '../../domain/sink/decide.js';
import { createEventStore } from '#event-log/event-store.js';
import { postgresSinkWrites, type WithSinkWrites as Writes } from '../../delivery/sink-writes.js';
import type { DelivererEvents } from '../../delivery/sink-events.js';
import { handleLocked, type LockedDecider, type Placed } from '../handle.js';
import { notFound } from './deciders.js';

/** The deliverer as the actor of the events it records (a sink paused, or answering again). */
export const DELIVERER_ACTOR = `deliverer:${hostname()}`;

type Noted = { readonly sinkId: string; readonly eventId: string; readonly metadata: Metadata };
type Change<C> = LockedDecider<C & Noted, SinkState | undefined, SinkRefusal, Placed, Writes>;

// No event, so never placed: a sink deleted meanwhile is no change to the deliverer.
const GONE: Placed = { spaceId: '', stream: streams.sinkChange('', '') };

// The sink read under its row's lock, so never crossing an admin's change.
const locked = {
  load: ({ sinks }: Writes, command: Noted) => sinks.lockedSink(command.sinkId),
  stream: (_command: unknown, facts: Placed) => facts,
  refusals: notFound,
};

const pause: Change<{ readonly attempts: number; readonly lastError: string | null }> = {
  ...locked,
  decide: (command, sink) =>
    sink ? decidePauseSink({ ...command, reason: 'failing' }, sink) : accept([], GONE),
  inline: ({ sinks }, command) => sinks.paused(command.sinkId, { reason: 'failing' }),
};

const resume: Change<object> = {
  ...locked,
  decide: (command, sink) =>
    sink ? decideResumeSink({ ...command, reason: 'answering' }, sink) : accept([], GONE),
  inline: ({ sinks }, command) => sinks.paused(command.sinkId, false),
};

/** The deliverer's pause and resume through the one handler; false when nothing changed. */
export function delivererEvents(db: Kysely<Database>): DelivererEvents {
  const store = createEventStore(db, {
    writes: (trx) => ({ sinks: postgresSinkWrites(trx) }),
    listeners: [],
  });
  const run = <C>(change: Change<C>, asked: C & { readonly sinkId: string }) => {
    const eventId = uuidv7();
    const metadata = {
      actor: DELIVERER_ACTOR,
      request_id: eventId,
      client_ip: '127.0.0.1',
      user_agent: null,
    };
    const command = { ...asked, eventId, metadata };
    return handleLocked(store, change, command, async (_writes, done) => done.changed);
  };
  const ids = { eventId: uuidv7 };
  return {
    pause: (sinkId, attempts, lastError) => run(pause, { sinkId, attempts, lastError }),
    resume: (sinkId) => run(resume, { sinkId }),
    delivered: (sinkId, spaceId, sets) =>
      recordSignalsDelivered(
        { events: store, ids },
        {
          spaceId,
          metadata: serviceMetadata(DELIVERER_ACTOR, ids.eventId(), '127.0.0.1'),
          delivered: { sink_id: sinkId, method: 'push', sets: [...sets] },
        },
      ),
  };
}
