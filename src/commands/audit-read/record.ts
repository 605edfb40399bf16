import { decideRecordAuditRead } from '../../domain/audit-read/decide.js';
import { streams, type Asked, type EventData } from '../../domain/events.js';
import type { CommandContext } from '../context.js';
import { handle } from '../handle.js';
import { recordingDecider } from '../recording.js';

/** An audit read to record, with the id its event gets (and its stream is named by). */
interface AuditRead extends Asked {
  readonly spaceId: string;
  readonly read: EventData<'audit-log-read'>;
}

const auditReads = recordingDecider<AuditRead>({
  stream: (command) => ({ spaceId: command.spaceId, stream: streams.auditRead(command.eventId) }),
  decide: decideRecordAuditRead,
});

/** Records that someone read the audit log of a space: who, what they asked, what they got. */
export async function recordAuditRead(
  ctx: Pick<CommandContext, 'events' | 'ids'>,
  command: Omit<AuditRead, 'eventId'>,
): Promise<void> {
  await handle(ctx.events, auditReads, { ...command, eventId: ctx.ids.eventId() });
}
