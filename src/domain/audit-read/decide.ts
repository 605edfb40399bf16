import { domainEvent, type DomainEvent, type EventData, type EventMetadata } from '../events.js';

/** Somebody read a space's audit log: what they asked for and what they got. Always recorded. */
export function decideRecordAuditRead(command: {
  readonly eventId: string;
  readonly read: EventData<'audit-log-read'>;
  readonly metadata: EventMetadata;
}): DomainEvent<'audit-log-read'> {
  return domainEvent(command.eventId, 'audit-log-read', command.read, command.metadata);
}
