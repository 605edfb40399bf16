import { decideRecordAuditRead } from '../../domain/audit-read/decide.js';
import { streams, type EventData, type EventMetadata } from '../../domain/events.js';
import type { CommandContext } from '../context.js';

/** Records that someone read the audit log of a space: who, what they asked, what they got. */
export async function recordAuditRead(
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly read: EventData<'audit-log-read'>;
    readonly metadata: EventMetadata;
  },
): Promise<void> {
  const eventId = ctx.ids.eventId();
  const { events } = decideRecordAuditRead({ ...command, eventId });
  await ctx.events.append({
    spaceId: command.spaceId,
    expectedVersion: 'no_stream',
    streamId: streams.auditRead(eventId),
    events,
  });
}
