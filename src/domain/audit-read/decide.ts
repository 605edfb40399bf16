import { accept, type Decision } from '../decision.js';
import { domainEvent, type DomainEvent, type EventData, type Asked } from '../events.js';

/** Somebody read a space's audit log: what they asked for and what they got. Always recorded. */
export function decideRecordAuditRead(
  command: Asked & { readonly read: EventData<'audit-log-read'> },
): Decision<DomainEvent<'audit-log-read'>> {
  return accept([domainEvent(command.eventId, 'audit-log-read', command.read, command.metadata)]);
}
