import { streams, type Asked, type EventData } from '../../domain/events.js';
import { decideRecordSignalsDelivered } from '../../domain/sink/decide.js';
import type { IdGenerator } from '../../domain/ports.js';
import type { EventStore } from '#event-log/event-store.js';
import { handle } from '../handle.js';
import { recordingDecider } from '../recording.js';

/** SETs a receiver acknowledged, with whom and from where (the deliverer, or a poll's request). */
export interface SignalsDelivered extends Omit<Asked, 'eventId'> {
  readonly spaceId: string;
  readonly delivered: EventData<'signals-delivered'>;
}

const deliveries = recordingDecider<SignalsDelivered & Asked>({
  stream: ({ spaceId, delivered, eventId }) => ({
    spaceId,
    stream: streams.signalsDelivered(delivered.sink_id, eventId),
  }),
  decide: decideRecordSignalsDelivered,
});

// The event's bound (signalsDeliveredSchema): a longer run is recorded in parts.
const PER_EVENT = 1000;

/** Records that a stream's receiver acknowledged SETs: one `signals-delivered` per 1,000. */
export async function recordSignalsDelivered(
  ctx: {
    readonly events: Pick<EventStore<unknown>, 'append'>;
    readonly ids: Pick<IdGenerator, 'eventId'>;
  },
  command: SignalsDelivered,
): Promise<void> {
  const { sets } = command.delivered;
  for (let start = 0; start < sets.length; start += PER_EVENT) {
    const delivered = { ...command.delivered, sets: sets.slice(start, start + PER_EVENT) };
    await handle(ctx.events, deliveries, { ...command, delivered, eventId: ctx.ids.eventId() });
  }
}
