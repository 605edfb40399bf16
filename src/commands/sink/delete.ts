import { decideDeleteSink } from '../../domain/sink/decide.js';
import { refused, type SinkAdminContext, type SinkCommand } from './admin.js';

/**
 * An admin deletes their space's sink: sink-deleted and the row marked so, its secret and sealed
 * path dropped, in one transaction; the deliverer stops its loop at its next reading of the sink
 * list. Deleting it again records nothing and answers the same; an operator's sink, or another
 * space's, is not found.
 */
export async function deleteSink(ctx: SinkAdminContext, command: SinkCommand): Promise<void> {
  await ctx.events.transact(async ({ writes: { sinks }, append }) => {
    const state = await sinks.lockedSink(command.sinkId);
    const decision = decideDeleteSink(
      { eventId: ctx.ids.eventId(), metadata: command.metadata, spaceId: command.spaceId },
      state,
    );
    if (!decision.ok) return refused();
    if (decision.events.length === 0) return;
    await append({ ...decision.facts, events: decision.events });
    await sinks.deleted(command.sinkId);
  });
}
