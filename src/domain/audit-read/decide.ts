import { accept, type Decision } from '../decision.js';
import { domainEvent, type DomainEvent, type EventData, type EventMetadata } from '../events.js';

/** Somebody read a space's audit log: what they asked for and what they got. Always recorded. */
export function decideRecordAuditRead(command: {
  readonly eventId: string;
  readonly read: EventData<'audit-log-read'>;
  readonly metadata: EventMetadata;
}): Decision<DomainEvent<'audit-log-read'>> {
  return accept([domainEvent(command.eventId, 'audit-log-read', command.read, command.metadata)]);
}
