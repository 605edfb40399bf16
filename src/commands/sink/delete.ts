import { handleLocked } from '../handle.js';
import type { SinkAdminContext, SinkCommand } from './admin.js';
import { deleteSinkDecider } from './deciders.js';

/** Deletes a sink and drops its secrets in one transaction; the deliverer stops at its next read. */
export async function deleteSink(ctx: SinkAdminContext, command: SinkCommand): Promise<void> {
  await handleLocked(
    ctx.events,
    deleteSinkDecider,
    { ...command, eventId: ctx.ids.eventId() },
    async () => undefined,
  );
}
