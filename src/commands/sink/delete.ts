import { handleLocked } from '../handle.js';
import type { SinkAdminContext, SinkCommand } from './admin.js';
import { deleteSinkDecider } from './deciders.js';

/**
 * An admin deletes their space's sink: sink-deleted and the row marked so, its secret and sealed
 * path dropped, in one transaction; the deliverer stops its loop at its next reading of the sink
 * list. Deleting it again records nothing and answers the same; an operator's sink, or another
 * space's, is not found.
 */
export async function deleteSink(ctx: SinkAdminContext, command: SinkCommand): Promise<void> {
  await handleLocked(
    ctx.events,
    deleteSinkDecider,
    { ...command, eventId: ctx.ids.eventId() },
    async () => undefined,
  );
}
