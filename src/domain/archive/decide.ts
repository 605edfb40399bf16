import { accept, refuse, type Decision } from '../decision.js';
import {
  domainEvent,
  serviceMetadata,
  streams,
  SYSTEM_SPACE,
  type DomainEvent,
  type EventData,
  type Placed,
  type ServiceActor,
} from '../events.js';

/** Archive a partition whose files were written and verified, by `operator:<user>` or `projector:<host>`. */
export interface ArchiveCommand extends ServiceActor {
  readonly eventId: string;
  readonly archive: EventData<'events-archived'>;
}

/** Where a partition's `events-archived` is appended: a stream of its own, in the system space. */
export const archivePlace = (partition: string): Placed => ({
  spaceId: SYSTEM_SPACE,
  stream: streams.archive(partition),
});

/** The event recording an archive; refused unless the files hold the whole partition. */
export function decideArchive(
  command: ArchiveCommand,
): Decision<DomainEvent<'events-archived'>, 'files_incomplete', Placed> {
  const inFiles = command.archive.files.reduce((sum, file) => sum + file.events, 0);
  if (inFiles !== command.archive.events) return refuse('files_incomplete');
  const event = domainEvent(
    command.eventId,
    'events-archived',
    command.archive,
    serviceMetadata(command.actor, command.eventId, command.origin),
  );
  return accept([event], archivePlace(command.archive.partition));
}
