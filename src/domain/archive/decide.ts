import { domainEvent, streams, SYSTEM_SPACE, type DomainEvent, type EventData } from '../events.js';

/** Archive a partition whose files were written and verified. */
export interface ArchiveCommand {
  readonly eventId: string;
  /** Who runs it (`operator:<user>` or `projector:<host>`) and from where. */
  readonly actor: string;
  readonly origin: string;
  readonly archive: EventData<'events-archived'>;
}

/**
 * The event that records an archive. Refused (no event) when the files do not account for every
 * event of the partition: the partition is then kept.
 */
export function decideArchive(command: ArchiveCommand):
  | {
      readonly ok: true;
      readonly spaceId: string;
      readonly streamId: string;
      readonly event: DomainEvent<'events-archived'>;
    }
  | { readonly ok: false; readonly reason: 'files_incomplete' } {
  const inFiles = command.archive.files.reduce((sum, file) => sum + file.events, 0);
  if (inFiles !== command.archive.events) return { ok: false, reason: 'files_incomplete' };
  return {
    ok: true,
    spaceId: SYSTEM_SPACE,
    streamId: streams.archive(command.archive.partition),
    event: domainEvent(command.eventId, 'events-archived', command.archive, {
      actor: command.actor,
      request_id: command.eventId,
      client_ip: command.origin,
      user_agent: null,
    }),
  };
}
